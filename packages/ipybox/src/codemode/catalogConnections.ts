/**
 * What kernel code reaches in code mode: the servers registered with `register_mcp_server` (the
 * kernel's own upstream pool, as in ipybox) and every catalog plugin with a package under
 * `mcptools/`, whose calls go through `server.catalog.callTool(..., {via: 'code'})` — the path a
 * direct call takes, with every interceptor (validator, TOTP gate, tool-call log, metrics, OAuth
 * scopes) — as the caller of the cell running in that kernel.
 *
 * A call the kernel code gives up (its timeout, the code gone) is cancelled: the tool's request
 * signal aborts.
 *
 * Privileged tools (`register_mcp_server`, `install_package`, the gate's lock, ...) are
 * refused or put to approval by the tool server's gate, as for registered servers
 * (`toolserver/privilege.ts`).
 *
 * Views and policy decide each call as they decide a direct one, for the cell's caller (its
 * principal and view ride on its context): a tool outside its view is `ToolNotFound`, a call a
 * policy rule refuses is `ToolError` whose message names the rule.
 *
 * Refused: a call when no cell of the kernel runs (code left running in a thread, say, has no
 * caller to act as), and a tool that left the catalog (its plugin unloaded mid-cell): both say so
 * in Python (`ToolRejected`, `ToolNotFound`).
 *
 * @module
 */
import {
  type CallOptions,
  type CatalogView,
  errorMessage,
  isPrivileged,
  type ToolContext,
  type UpstreamPool,
} from '@mcpbox/framework';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';
import {
  ToolCallRefused,
  type ToolConnection,
  type ToolConnections,
} from '../toolserver/runToolCall.ts';
import type { CatalogModules } from './catalogModules.ts';

/** The SDK's JSON-RPC `InvalidParams`: the catalog's answer for a tool that is not there. */
const INVALID_PARAMS = -32602;

export function catalogConnections(
  pool: UpstreamPool,
  cell: () => ToolContext | undefined,
  catalog: CatalogView,
  modules: CatalogModules,
): ToolConnections {
  const inCatalog = (name: string) => !pool.has(name) && modules.knows(name);
  return {
    has: (name) => pool.has(name) || modules.knows(name),
    names: () => [...new Set([...pool.names(), ...modules.plugins()])].sort(),
    get: (name) =>
      inCatalog(name) ? catalogConnection(name, cell, catalog, modules) : pool.get(name),
    closeAll: () => pool.closeAll(),
  };
}

function catalogConnection(
  plugin: string,
  cell: () => ToolContext | undefined,
  catalog: CatalogView,
  modules: CatalogModules,
): ToolConnection {
  const gone = (tool: string) =>
    new ToolCallRefused(
      'not_found',
      `tool '${tool}' is not in the catalog: plugin '${plugin}' was unloaded or does not ` +
        'have it (now), or it is not in your view. search_tools shows what you can call.',
    );
  return {
    async callTool(name, args, options: CallOptions = {}): Promise<CallToolResult> {
      const ctx = cell();
      if (ctx === undefined) {
        throw new ToolCallRefused(
          'rejected',
          `${plugin}.${name}: refused: no execute_code cell of this kernel is running, so there ` +
            'is no caller to run the tool as. Call catalog tools from the code of a running cell.',
        );
      }
      if (modules.layout.locate(name)?.plugin !== plugin) throw gone(name);
      // Ended when the kernel code stops waiting (its timeout, the code gone) or the cell's
      // request ends: the tool sees it as its request's abort signal and can stop its work.
      const stop = new AbortController();
      try {
        const caller = callingAs(ctx, options, stop.signal);
        return await withTimeout(
          catalog.callTool(name, args, caller, { via: 'code' }),
          options,
          stop,
        );
      } catch (error) {
        if (
          (error as { code?: unknown }).code === INVALID_PARAMS &&
          /not found|disabled/i.test(errorMessage(error))
        ) {
          throw gone(name);
        }
        throw error;
      }
    },
    async listTools(): Promise<Tool[]> {
      return catalog
        .tools()
        .filter((t) => t.plugin === plugin)
        .map((t) => t.tool);
    },
    // Read from the catalog now, not the layout of the last sync: a reload may have marked it.
    privileged: (name) =>
      catalog
        .tools()
        .some((t) => t.plugin === plugin && t.tool.name === name && isPrivileged(t.tool)),
  };
}

/**
 * The cell's caller, whose questions during this call (a mirrored server's elicitation or
 * sampling, which reach `ctx.elicit`/`ctx.sample`) go through the tool server's askers, as a
 * registered server's do: framed as asked by kernel code, and the cell's clock stopped while
 * the user answers; and whose abort signal (`ctx.mcpReq.signal`, `ctx.signal`) also fires when
 * this call is given up (`stop`). Everything else is the caller's own context.
 */
function callingAs(
  ctx: ToolContext,
  { elicit, sample }: CallOptions,
  stop: AbortSignal,
): ToolContext {
  const signal = AbortSignal.any([ctx.mcpReq.signal, stop]);
  const mcpReq = overriding(ctx.mcpReq, { signal });
  return overriding(ctx, {
    mcpReq,
    signal,
    ...(elicit !== undefined && { elicit }),
    ...(sample !== undefined && { sample }),
  });
}

/** `target` with some properties replaced; its methods still run on it (private state). */
function overriding<T extends object>(target: T, replaced: Record<string, unknown>): T {
  return new Proxy(target, {
    get(object, property) {
      if (typeof property === 'string' && Object.hasOwn(replaced, property)) {
        return replaced[property];
      }
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/**
 * The call's answer, or a `REQUEST_TIMEOUT` error once `timeout` ms pass (the tool server's
 * per-call timeout) or the kernel code goes away (`signal`). Either way `stop` is aborted, so
 * the tool is cancelled rather than left running for nobody.
 */
function withTimeout(
  call: Promise<CallToolResult>,
  { timeout, signal }: CallOptions,
  stop: AbortController,
): Promise<CallToolResult> {
  if (timeout === undefined && signal === undefined) return call;
  return new Promise((resolve, reject) => {
    const giveUp = (error: Error) => {
      reject(error);
      stop.abort(error);
    };
    const timer =
      timeout === undefined
        ? undefined
        : setTimeout(
            () => giveUp(Object.assign(new Error('timed out'), { code: 'REQUEST_TIMEOUT' })),
            timeout,
          );
    const onAbort = () => giveUp(new Error('the kernel code stopped waiting for the call'));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    call.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  });
}
