/**
 * The interactive client's connection and what it knows about the server: the SDK `Client`, the
 * cached lists of tools, resources and prompts (kept fresh by `list_changed`, which a 2026
 * connection receives on a `subscriptions/listen` stream the SDK opens), and whether the server
 * is still there. Commands read and call through this; it never prints results itself, only
 * notices about things the server did on its own.
 */
import type { Prompt, Resource, ResourceTemplateType, Tool } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/client';
import type { Ask } from './askArguments.ts';
import { type Connection, type ConnectTarget, connect } from './connect.ts';
import { answerElicitation } from './elicitation.ts';
import { formatError, formatListChange, type ServerInfo } from './format.ts';

export const CLIENT_INFO = { name: 'mcpbox-client', version: '0.1.0' } as const;

/** Where the client writes. Results go to `print`, failures to `error`. */
export interface Output {
  print(text: string): void;
  error(text: string): void;
  /** Something the server did on its own (a list changed, the connection closed, a log line). */
  notice(text: string): void;
}

export class NotConnectedError extends Error {
  constructor() {
    super('Not connected to the server. Type "reconnect" to connect again, or "quit".');
    this.name = 'NotConnectedError';
  }
}

/** Collects every page of a paginated list; stops if a server repeats a cursor. */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.nextCursor;
    if (cursor !== undefined && seen.has(cursor)) break;
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return items;
}

export class ClientSession {
  readonly #target: ConnectTarget;
  readonly #out: Output;
  #connection: Connection | null = null;
  #tools: Tool[] | undefined;
  #resources: Resource[] | undefined;
  #templates: ResourceTemplateType[] | undefined;
  #prompts: Prompt[] | undefined;
  /**
   * Asks the user a question at the prompt; set by the REPL. While unset, a server's request
   * for input (elicitation) is cancelled.
   */
  askUser: Ask | undefined;

  constructor(target: ConnectTarget, out: Output) {
    this.#target = target;
    this.#out = out;
  }

  get connected(): boolean {
    return this.#connection !== null;
  }

  /** The SDK client of the live connection; throws `NotConnectedError` after the server left. */
  get client(): Client {
    if (!this.#connection) throw new NotConnectedError();
    return this.#connection.client;
  }

  /** Last known tools (for shorthand and completion); empty before the first listing. */
  get knownTools(): Tool[] {
    return this.#tools ?? [];
  }
  get knownPrompts(): Prompt[] {
    return this.#prompts ?? [];
  }
  get knownResources(): Resource[] {
    return this.#resources ?? [];
  }

  /** Connects and lists the tools. Returns a one-line banner describing the server. */
  async connect(): Promise<string> {
    const connection = await connect(this.#target, () => this.#newClient());
    this.#connection = connection;
    connection.client.onclose = () => {
      // Only the live connection matters: an old one closing after `reconnect` is expected.
      if (this.#connection !== connection) return;
      this.#connection = null;
      this.#out.notice(
        'The connection to the server closed. Type "reconnect" to connect again, or "quit".',
      );
    };
    this.#tools = this.#resources = this.#templates = this.#prompts = undefined;
    const tools = await this.listTools();
    const v = connection.client.getServerVersion();
    const name = v ? `${v.name} ${v.version}` : 'server';
    const protocol = `${connection.client.getNegotiatedProtocolVersion()} (${connection.client.getProtocolEra()})`;
    return `Connected to ${name} via ${connection.via}, protocol ${protocol}: ${tools.length} tools. Type "help" for commands.`;
  }

  async reconnect(): Promise<string> {
    await this.close();
    return this.connect();
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = null;
    await connection?.close().catch(() => {});
  }

  info(): ServerInfo {
    const client = this.client;
    return {
      version: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
      via: this.#connection?.via ?? '',
    };
  }

  async listTools(): Promise<Tool[]> {
    const client = this.client;
    this.#tools = client.getServerCapabilities()?.tools
      ? await allPages(async (cursor) => {
          const r = await client.listTools(cursor ? { cursor } : undefined);
          return { items: r.tools, nextCursor: r.nextCursor };
        })
      : [];
    return this.#tools;
  }

  async listResources(): Promise<{ resources: Resource[]; templates: ResourceTemplateType[] }> {
    const client = this.client;
    if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
    this.#resources = await allPages(async (cursor) => {
      const r = await client.listResources(cursor ? { cursor } : undefined);
      return { items: r.resources, nextCursor: r.nextCursor };
    });
    this.#templates = await allPages(async (cursor) => {
      const r = await client.listResourceTemplates(cursor ? { cursor } : undefined);
      return { items: r.resourceTemplates, nextCursor: r.nextCursor };
    });
    return { resources: this.#resources, templates: this.#templates };
  }

  async listPrompts(): Promise<Prompt[]> {
    const client = this.client;
    this.#prompts = client.getServerCapabilities()?.prompts
      ? await allPages(async (cursor) => {
          const r = await client.listPrompts(cursor ? { cursor } : undefined);
          return { items: r.prompts, nextCursor: r.nextCursor };
        })
      : [];
    return this.#prompts;
  }

  /** A tool by name from the cache, listing again once if it is not there (the cache may lag). */
  async findTool(name: string): Promise<Tool | undefined> {
    const cached = this.#tools?.find((t) => t.name === name);
    return cached ?? (await this.listTools()).find((t) => t.name === name);
  }

  async findPrompt(name: string): Promise<Prompt | undefined> {
    const cached = this.#prompts?.find((p) => p.name === name);
    return cached ?? (await this.listPrompts()).find((p) => p.name === name);
  }

  #newClient(): Client {
    const onChanged = (refresh: () => Promise<string | null>) => (error: Error | null) => {
      // The SDK debounces these; by the time one fires, this client may be closed or replaced.
      if (this.#connection?.client !== client) return;
      if (error) return this.#out.notice(`List change notification failed: ${formatError(error)}`);
      refresh().then(
        (message) => message && this.#out.notice(message),
        (err) => this.#out.notice(`Could not refresh after list_changed: ${formatError(err)}`),
      );
    };
    // Refreshes one cached list; the notice is null when nothing changed at all (a server may
    // announce a change that a concurrent listing already picked up).
    const refresher =
      <T>(
        kind: 'tool' | 'prompt' | 'resource',
        cached: () => T[] | undefined,
        list: () => Promise<T[]>,
        key: (item: T) => string,
      ) =>
      async (): Promise<string | null> => {
        const before = cached();
        const after = await list();
        if (before && JSON.stringify(before) === JSON.stringify(after)) return null;
        return formatListChange(kind, before?.map(key), after.map(key));
      };
    const options = (refresh: () => Promise<string | null>) => ({
      // autoRefresh is off because the SDK's refresh reads only the first page; ours reads all.
      autoRefresh: false,
      debounceMs: 100,
      onChanged: onChanged(refresh),
    });
    const client = new Client(CLIENT_INFO, {
      // Form elicitation: a server may ask the user for input in the middle of a call. The SDK
      // fills in schema defaults for fields the user skipped.
      capabilities: { elicitation: { form: { applyDefaults: true } } },
      listChanged: {
        tools: options(
          refresher(
            'tool',
            () => this.#tools,
            () => this.listTools(),
            (t) => t.name,
          ),
        ),
        prompts: options(
          refresher(
            'prompt',
            () => this.#prompts,
            () => this.listPrompts(),
            (p) => p.name,
          ),
        ),
        resources: options(
          refresher(
            'resource',
            () => this.#resources,
            async () => (await this.listResources()).resources,
            (r) => r.uri,
          ),
        ),
      },
    });
    client.setRequestHandler('elicitation/create', (request) =>
      this.askUser
        ? answerElicitation(request.params, this.askUser, this.#out)
        : { action: 'cancel' as const },
    );
    client.setNotificationHandler('notifications/message', (n) => {
      const { level, logger, data } = n.params;
      const text = typeof data === 'string' ? data : JSON.stringify(data);
      this.#out.notice(`[server ${level}${logger ? ` ${logger}` : ''}] ${text}`);
    });
    return client;
  }
}
