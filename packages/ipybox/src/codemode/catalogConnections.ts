/**
 * What kernel code reaches in code mode: the servers registered with `register_mcp_server` (the
 * kernel's own upstream pool, as in ipybox) and every catalog plugin with a package under
 * `mcptools/`, whose calls go through `server.catalog.callTool(..., {via: 'code'})` — the path a
 * direct call takes, with every interceptor (validator, TOTP gate, tool-call log, metrics, OAuth
 * scopes) — as the caller of the cell running in that kernel.
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
        'have it (now). search_tools shows what there is.',
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
      try {
        const caller = askingThroughCell(ctx, options);
        return await withTimeout(catalog.callTool(name, args, caller, { via: 'code' }), options);
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
  };
}

/**
 * The cell's caller, whose questions during this call (a mirrored server's elicitation or
 * sampling, which reach `ctx.elicit`/`ctx.sample`) go through the tool server's askers, as a
 * registered server's do: framed as asked by kernel code, and the cell's clock stopped while
 * the user answers. Everything else is the caller's own context.
 */
function askingThroughCell(ctx: ToolContext, { elicit, sample }: CallOptions): ToolContext {
  if (elicit === undefined && sample === undefined) return ctx;
  return new Proxy(ctx, {
    get(target, property) {
      if (property === 'elicit' && elicit !== undefined) return elicit;
      if (property === 'sample' && sample !== undefined) return sample;
      const value: unknown = Reflect.get(target, property, target);
      // Methods run on the real context (it keeps private state).
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The call's answer, or a `REQUEST_TIMEOUT` error once `timeout` ms pass (the tool server's
 * per-call timeout) or the kernel code goes away (`signal`). The tool itself runs on: the
 * catalog has no way to cancel one call of a request that continues.
 */
function withTimeout(
  call: Promise<CallToolResult>,
  { timeout, signal }: CallOptions,
): Promise<CallToolResult> {
  if (timeout === undefined && signal === undefined) return call;
  return new Promise((resolve, reject) => {
    const timer =
      timeout === undefined
        ? undefined
        : setTimeout(
            () => reject(Object.assign(new Error('timed out'), { code: 'REQUEST_TIMEOUT' })),
            timeout,
          );
    const onAbort = () => reject(new Error('the kernel code stopped waiting for the call'));
    signal?.addEventListener('abort', onAbort, { once: true });
    call.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    });
  });
}
