/**
 * A session's `tools/list` and `tools/call`: the listing as this client may see it, and a call
 * run at once, as a task, or over `input_required` rounds.
 *
 * @module
 */
import {
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  ProtocolError,
  ProtocolErrorCode,
  type Tool,
} from '@modelcontextprotocol/server';
import type { AccessControl } from '../../access/access.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { Principal } from '../../contract/principal.ts';
import type { RequestExtra } from '../../contract/tool.ts';
import { GATE_HANDLE_ARGUMENT } from '../../gate/handles.ts';
import { toolsFor } from '../appOnlyTools.ts';
import { toToolContext } from '../context.ts';
import { InputRounds } from '../inputRounds.ts';
import { requestDeclaresTasks, startTask, TASKS_EXTENSION, tasksRequired } from '../tasks.ts';
import type { SessionHost } from './host.ts';

/**
 * Takes the reserved `gate_handle` argument off a call (unless the tool itself declares a
 * parameter of that name) and hands it to the gate through the context.
 */
function takeGateHandle(
  catalog: Catalog,
  tool: string,
  args: Record<string, unknown> | undefined,
  extra: RequestExtra,
): Record<string, unknown> | undefined {
  if (!args || !(GATE_HANDLE_ARGUMENT in args)) return args;
  const declared = catalog.getTool(tool)?.definition.inputSchema.properties as
    | Record<string, unknown>
    | undefined;
  if (declared && GATE_HANDLE_ARGUMENT in declared) return args;
  const { [GATE_HANDLE_ARGUMENT]: handle, ...rest } = args;
  if (typeof handle === 'string') extra.gateHandle = handle;
  return rest;
}

/** The catalog's name of a tool called through `view` by `called` (unknown names pass on). */
function catalogName(host: SessionHost, called: string, view: string | undefined): string {
  const named = host.access.view(view)?.catalogName(called);
  if (named === undefined && view !== undefined && host.access.view(view)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${called} not found`);
  }
  return named ?? called;
}

/**
 * What `tools/list` shows this caller through `view`: the same array until the catalog, the
 * access settings or the view change (each layer caches it), which the 2026 HTTP route's cache
 * of serialized answers keys on (transports/toolsListCache.ts).
 */
export function listedTools(
  catalog: Catalog,
  access: AccessControl,
  principal: Principal,
  view: string | undefined,
  capabilities: ClientCapabilities | undefined,
): Tool[] {
  const lookup = (name: string) => catalog.getTool(name);
  return toolsFor(access.listTools(principal, view, catalog.listTools(), lookup), capabilities);
}

export function registerToolHandlers(host: SessionHost): void {
  const { server, catalog, dispatcher, access, counters, counted, withRounds } = host;

  server.setRequestHandler(
    'tools/list',
    counted(async (_request, extra) => ({
      tools: listedTools(catalog, access, extra.principal, extra.view, extra.clientCapabilities),
    })),
  );

  const call = counted(
    async (request: CallToolRequest, extra: RequestExtra): Promise<CallToolResult> => {
      // The view may list a tool under another name; the catalog and its routes know its own.
      const name = catalogName(host, request.params.name, extra.view);
      const args = takeGateHandle(catalog, name, request.params.arguments, extra);
      const keepsRunning = catalog.getTool(name)?.keepsRunning;
      const taskable = keepsRunning?.tasks && requestDeclaresTasks(extra);
      if (keepsRunning?.tasks === 'required' && !taskable) {
        throw tasksRequired(
          `Tool ${name} runs only as a task: declare the ${TASKS_EXTENSION} extension`,
        );
      }
      if (taskable) {
        // Answered at once with a task handle; the call runs on (tasks.ts).
        return startTask(extra, { name, args }, keepsRunning, (runExtra, detached) =>
          dispatcher.call(
            name,
            args,
            toToolContext(runExtra, { rounds: InputRounds.none(), detached }),
          ),
        ) as unknown as CallToolResult;
      }
      const asked = await withRounds(extra, { method: 'tools/call', name, args }, (ctx) =>
        dispatcher.call(name, args, ctx),
      );
      if (!('result' in asked)) return asked.inputRequired as unknown as CallToolResult;
      const result = asked.result;
      if (result.isError) counters.errors += 1;
      return result;
    },
  );
  server.setRequestHandler('tools/call', call);
  host.direct.set('tools/call', call);
}
