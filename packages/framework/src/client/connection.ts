/**
 * `UpstreamConnection`: one named upstream MCP server, connected on first use and restarted on
 * the next use after it died. Requests pass through unchanged (results are not re-validated or
 * trimmed: the caller's own client does that), with progress, cancellation and timeouts.
 *
 * Either protocol era: the first connect negotiates (MCP 2026-07-28 through `server/discover`, or
 * the 2025 `initialize`), and the verdict is kept (`verdicts.ts`) so a restart connects without
 * probing. What an upstream asks of our caller in the middle of a call — elicitation or sampling,
 * as `input_required` rounds (2026) or as real requests (2025) — goes to that caller's `elicit` /
 * `sample` ({@link CallOptions}), and the answer back upstream. List changes reach
 * `onListChanged` in both eras (a `subscriptions/listen` stream on a 2026 connection).
 *
 * This module is the public face; the parts live beside it: the connection's life (connect,
 * restart, close, change stream) in `lifecycle.ts`, the SDK client it connects with in
 * `upstreamClient.ts`, one forwarded request in `forwarding.ts`, paged lists in `listing.ts`,
 * the options in `connectionOptions.ts`.
 *
 * Used by mcp-proxy to mirror another server as a plugin, and by ipybox's tool server to run
 * upstream tools for kernel code.
 *
 * @module
 */
import type {
  CallToolResult,
  Client,
  GetPromptRequest,
  GetPromptResult,
  Prompt,
  ProtocolEra,
  ReadResourceRequest,
  ReadResourceResult,
  Resource,
  ResourceTemplateType,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
// The server SDK's copy: the client SDK is loaded only with the first upstream (`sdk.ts`).
import { SKILLS_EXTENSION_ID, type Skill } from '@modelcontextprotocol/server/ext/skills';
import { traceUpstreamRequest } from '../telemetry/spans.ts';
import type { TransportKind } from './connect.ts';
import {
  type CallOptions,
  type ListKind,
  resolveOptions,
  type UpstreamConnectionOptions,
} from './connectionOptions.ts';
import { type Forwarder, forwardRequest } from './forwarding.ts';
import { UpstreamLifecycle } from './lifecycle.ts';
import { LoosePage, listPages } from './listing.ts';
import type { UpstreamParams } from './params.ts';
import { CallerQuestions } from './questions.ts';
import { ProgressRouter } from './requestControl.ts';
import { LooseResult, type ResultSchema } from './resultShapes.ts';
import { VerdictCache } from './verdicts.ts';

export type { CallOptions, ListKind, UpstreamConnectionOptions };

export class UpstreamConnection {
  readonly name: string;
  /** The params as written, placeholders intact. */
  readonly params: UpstreamParams;
  readonly #lifecycle: UpstreamLifecycle;
  readonly #forwarder: Forwarder;

  constructor(name: string, params: UpstreamParams, options: UpstreamConnectionOptions = {}) {
    this.name = name;
    this.params = params;
    const resolved = resolveOptions(options);
    const progress = new ProgressRouter(name);
    const questions = new CallerQuestions(name);
    this.#lifecycle = new UpstreamLifecycle({
      name,
      params,
      options: resolved,
      verdicts: options.verdicts ?? new VerdictCache(),
      progress,
      questions,
    });
    this.#forwarder = {
      name,
      requestTimeoutMs: resolved.requestTimeoutMs,
      lifecycle: this.#lifecycle,
      progress,
      questions,
    };
  }

  /** True while a live connection exists (false before first use, after death and close). */
  get connected(): boolean {
    return this.#lifecycle.live !== undefined;
  }

  /** How many times the upstream has been started (or connected to); restarts count too. */
  get starts(): number {
    return this.#lifecycle.starts;
  }

  /** pid of the spawned process (the process-group guard on Linux) while connected over stdio. */
  get pid(): number | undefined {
    return this.#lifecycle.live?.pid;
  }

  get transportKind(): TransportKind | undefined {
    return this.#lifecycle.live?.kind;
  }

  /** `modern` (2026-07-28) or `legacy` (2025) while connected. */
  get protocolEra(): ProtocolEra | undefined {
    return this.#lifecycle.live?.client.getProtocolEra();
  }

  /** The negotiated protocol version while connected, e.g. `2026-07-28` or `2025-11-25`. */
  get protocolVersion(): string | undefined {
    return this.#lifecycle.live?.client.getNegotiatedProtocolVersion();
  }

  get closed(): boolean {
    return this.#lifecycle.closed;
  }

  /** The connected SDK client, connecting (or reconnecting after a crash) first if needed. */
  async client(): Promise<Client> {
    return (await this.#lifecycle.ensure()).client;
  }

  /** What the upstream announced at connect (`initialize` or `server/discover`); connects first. */
  async serverCapabilities(): Promise<ServerCapabilities> {
    return (await this.client()).getServerCapabilities() ?? {};
  }

  // callTool, readResource and getPrompt are not `async`: the request's promise is handed on as
  // it is, not wrapped in one more that a mirrored call would wait a tick longer for.
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.#request('tools/call', params, LooseResult, options) as Promise<CallToolResult>;
  }

  /** Every tool, as the upstream sent it: unknown fields and JSON Schemas untouched. */
  async listTools(): Promise<Tool[]> {
    return this.#listAll('tools', 'tools/list', 'tools') as Promise<Tool[]>;
  }

  async listResources(): Promise<Resource[]> {
    return this.#listAll('resources', 'resources/list', 'resources') as Promise<Resource[]>;
  }

  async listResourceTemplates(): Promise<ResourceTemplateType[]> {
    return this.#listAll('resources', 'resources/templates/list', 'resourceTemplates') as Promise<
      ResourceTemplateType[]
    >;
  }

  async listPrompts(): Promise<Prompt[]> {
    return this.#listAll('prompts', 'prompts/list', 'prompts') as Promise<Prompt[]>;
  }

  /**
   * Every skill (SEP-2640 `skills/list`), entries as sent; none from a server that does not
   * declare the extension.
   */
  async listSkills(): Promise<Skill[]> {
    const extensions = (await this.serverCapabilities()).extensions ?? {};
    if (extensions[SKILLS_EXTENSION_ID] === undefined) return [];
    const method = 'skills/list';
    return listPages(this.name, method, 'skills', (page) =>
      this.#request(method, page, LoosePage, {}),
    ) as Promise<Skill[]>;
  }

  readResource(
    params: ReadResourceRequest['params'],
    options: CallOptions = {},
  ): Promise<ReadResourceResult> {
    return this.#request(
      'resources/read',
      params,
      LooseResult,
      options,
    ) as Promise<ReadResourceResult>;
  }

  getPrompt(
    params: GetPromptRequest['params'],
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#request('prompts/get', params, LooseResult, options) as Promise<GetPromptResult>;
  }

  /** Closes the connection (ending a stdio upstream's whole process group). Idempotent. */
  close(): Promise<void> {
    return this.#lifecycle.close();
  }

  /** One request, in a client span whose trace context travels on in `_meta` when tracing. */
  #request(
    method: string,
    params: Record<string, unknown>,
    schema: ResultSchema,
    options: CallOptions,
  ): Promise<unknown> {
    return traceUpstreamRequest(this.name, method, params, (sent) =>
      forwardRequest(this.#forwarder, method, sent, schema, options),
    );
  }

  async #listAll(capability: ListKind, method: string, key: string): Promise<unknown[]> {
    // Asking a server for a list it does not offer only earns a "method not found".
    if (!(await this.serverCapabilities())[capability]) return [];
    return listPages(this.name, method, key, (page) => this.#request(method, page, LoosePage, {}));
  }
}
