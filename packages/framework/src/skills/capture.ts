/**
 * The SDK's `SkillsExtension.attach` wants an `McpServer`; mcpbox serves each session with a
 * low-level `Server` whose resources come from the shared catalog. These stand-ins give `attach`
 * the few members it uses (`isConnected`, `server`, `registerResource`), so the SDK's own code
 * validates, pages, reads and checks every skill file, and mcpbox routes the pieces:
 *
 * - {@link attachToSession}: the skills methods and capability go on the session's `Server`; the
 *   `skill://` template is the catalog's (registered once, {@link captureExtension}).
 * - {@link captureExtension}: what `attach` registers, recorded instead of served — the resource
 *   template and the method handlers — to serve them elsewhere or to read a folder's catalog
 *   as a `SkillSource`.
 *
 * @module
 */
import type {
  McpServer,
  ReadResourceResult,
  ResourceTemplate,
  Server,
  ServerContext,
  Variables,
} from '@modelcontextprotocol/server';
import {
  RESOURCES_DIRECTORY_READ_METHOD,
  type SkillReadResult,
  type SkillSource,
  type SkillsExtension,
} from '@modelcontextprotocol/server/ext/skills';

type Handler = (params: Record<string, unknown>, ctx: ServerContext) => Promise<unknown>;
type TemplateRead = (
  uri: URL,
  variables: Variables,
  ctx: ServerContext,
) => Promise<ReadResourceResult>;

/** What `attach` registered, recorded. */
export interface CapturedExtension {
  name: string;
  template: ResourceTemplate;
  read: TemplateRead;
  handlers: ReadonlyMap<string, Handler>;
}

/** Serves `extension`'s methods and capability on one session's server (before it connects). */
export function attachToSession(extension: SkillsExtension, server: Server): void {
  const standIn = {
    isConnected: () => false,
    server,
    // The `skill://` template is served from the catalog, for every session at once.
    registerResource: () => undefined,
  };
  extension.attach(standIn as unknown as McpServer);
}

/** Attaches `extension` to a recorder and returns what it registered. */
export function captureExtension(extension: SkillsExtension): CapturedExtension {
  const handlers = new Map<string, Handler>();
  let registered: Pick<CapturedExtension, 'name' | 'template' | 'read'> | undefined;
  const server = {
    assertCanSetRequestHandler: () => undefined,
    setRequestHandler: (method: string, _schemas: unknown, handler: Handler) => {
      handlers.set(method, handler);
    },
    registerCapabilities: () => undefined,
    // No protocol version: results carry no 2026 cache fields (the serving extension adds them).
    getNegotiatedProtocolVersion: () => undefined,
  };
  const recorder = {
    // Never "connected": a catalog's reload() then sends nothing through the recorder.
    isConnected: () => false,
    server,
    registerResource: (
      name: string,
      template: ResourceTemplate,
      _config: unknown,
      read: TemplateRead,
    ) => {
      registered = { name, template, read };
    },
  };
  extension.attach(recorder as unknown as McpServer);
  if (!registered) throw new Error('the skills extension registered no resource template');
  return { ...registered, handlers };
}

function toSkillRead(result: ReadResourceResult): SkillReadResult | undefined {
  const content = result.contents[0];
  if (!content) return undefined;
  const mimeType = content.mimeType === undefined ? {} : { mimeType: content.mimeType };
  if ('text' in content) return { text: content.text, ...mimeType };
  return { bytes: new Uint8Array(Buffer.from(content.blob, 'base64')), ...mimeType };
}

/**
 * A catalog the SDK built from a folder, as a `SkillSource`: its listing, lookups, checked reads
 * and directory reads, exactly as the SDK serves them.
 */
export function sourceOfExtension(extension: SkillsExtension): SkillSource {
  const captured = captureExtension(extension);
  const call = (method: string, params: Record<string, unknown>, ctx: ServerContext) => {
    const handler = captured.handlers.get(method);
    if (!handler) throw new Error(`the skills extension registered no ${method} handler`);
    return handler(params, ctx);
  };
  const listed = captured.template.listCallback;
  return {
    list: async (params, ctx) =>
      (await call('skills/list', params, ctx)) as Awaited<ReturnType<SkillSource['list']>>,
    get: async (uri, ctx) => {
      const found = (await call('skills/get', { uri }, ctx).catch(() => undefined)) as
        | { skill: Awaited<ReturnType<SkillSource['get']>> }
        | undefined;
      return found?.skill;
    },
    read: async (uri, ctx) => toSkillRead(await captured.read(new URL(uri), {}, ctx)),
    readDirectory: async (uri, params, ctx) =>
      (await call(RESOURCES_DIRECTORY_READ_METHOD, { uri, ...params }, ctx)) as Awaited<
        ReturnType<NonNullable<SkillSource['readDirectory']>>
      >,
    listResources: async (ctx) => (listed ? (await listed(ctx)).resources : []),
  };
}
