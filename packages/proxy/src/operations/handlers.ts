/**
 * What each management operation of `table.ts` does, over the {@link PluginManager}: `run`
 * performs it and returns a typed result; `rest` is the API's answer for that result (status
 * and JSON), `tool` the `proxy__*` tool's. Every front door dispatches here, so an operation
 * behaves alike whoever asks (REST, CLI, tool, console, cluster); only the wording of a
 * front door's own hints comes from the caller.
 *
 * @module
 */
import {
  type LoadResult,
  pluginList,
  pluginStatus,
  type RegistrySummary,
  type SeenPrincipal,
  type StatusInfo,
  type ToolReturn,
  toolList,
  type UnloadResult,
} from '@mcpbox/framework';
import { z } from 'zod';
import type { ExplainAnswer, PolicyReload } from '../proxy/accessAdmin.ts';
import { type ClusterView, clusterText } from '../proxy/clusterView.ts';
import type { CommandInfo, CommandOutcome } from '../proxy/commands.ts';
import type { AvailableEntry, PluginManager } from '../proxy/manager.ts';
import { explainText, principalsText, reloadText } from './accessText.ts';
import { APPROVAL_HANDLERS } from './approvalHandlers.ts';
import { auditedHandlers } from './audited.ts';
import { commandResultText, commandsText } from './cliText.ts';
import {
  decidePins,
  diffPins,
  listPins,
  type PinDecided,
  type PinDecision,
  type PinDesk,
  type PinDiffsAnswer,
  type PinsAnswer,
} from './pinActions.ts';
import { PIN_TARGET, PIN_TARGET_LOOSE } from './pinOperations.ts';
import { pinDecisionText, pinDiffsText, pinsText } from './pinsText.ts';
import { statusJson } from './status.ts';
import { EXPLAIN_ARGS, type OperationArgs, type OperationName } from './table.ts';
import { describeOperation, dispatchHint, error, text } from './toolText.ts';

/** Who asks: the manager, how this front door says "load it", and whether the cluster asks. */
export interface Caller {
  manager: PluginManager;
  /** For reloading a plugin that is not loaded: how to load it, in this front door's terms. */
  howToLoad?: (plugin: string) => string;
  /** Cluster mode applying another replica's change: not to be shared again. */
  fromCluster?: boolean;
  /**
   * Who decides, for what is recorded as theirs (a pin's `by`, an approval's grant, the audit
   * trail's `by`): the calling principal's id at the tool door, else one of {@link OPERATORS}.
   */
  operator?: string;
  /** The tool door's calling principal: it may not answer approvals of its own calls. */
  principal?: string;
}

/**
 * Who decides at the operator's doors: the management token's holder (REST, the approval
 * WebSocket), a console session, a signal.
 */
export const OPERATORS = {
  api: 'management:api',
  console: 'management:console',
  socket: 'management:approval-socket',
  sighup: 'SIGHUP',
} as const;

/** What the `proxy__*` tools' texts need beyond the result. */
export interface ToolDoor {
  manager: PluginManager;
  /** `proxy__run` exists: results name the tools a client has to reach through it. */
  dynamicDispatch: boolean;
  /** Server name, transport and ports for `proxy__status`. */
  status: () => Omit<StatusInfo, 'summary'>;
  /** Whether the tool's caller may reach a tool (its view and the policy); all when absent. */
  mayReach?: (tool: string) => boolean;
}

/** A REST answer: 200 with the result, or an error status with `{ok: false, error}`. */
export interface RestAnswer {
  status: number;
  body: unknown;
}

export interface Handler<A, R> {
  run(caller: Caller, args: A): Promise<R>;
  rest(result: R): RestAnswer;
  tool(result: R, door: ToolDoor, args: A): ToolReturn;
}

const refused = (status: number, message: string): RestAnswer => ({
  status,
  body: { ok: false, error: message },
});

type PluginArgs = { plugin: string };

/** load, unload, reload: the manager's call, and the texts for what it did. */
function pluginHandler<R extends LoadResult>(
  run: (caller: Caller, plugin: string) => Promise<R>,
  wording: { verb: string; failed: string; removed?: boolean },
): Handler<PluginArgs, R> {
  return {
    run: (caller, { plugin }) => run(caller, plugin),
    rest: (result) =>
      result.ok ? { status: 200, body: result } : refused(400, result.error ?? 'operation failed'),
    tool(result, door) {
      if (!result.ok) return error(result.error ?? wording.failed);
      const described = describeOperation(wording.verb, result, wording.removed);
      // The hint goes with tools a client has to reach through proxy__run (unloaded ones are gone).
      const { manager } = door;
      const hint =
        !wording.removed && door.dynamicDispatch && manager.startupDone
          ? dispatchHint(result.tools.filter((t) => manager.isDynamicTool(t)))
          : '';
      return text(described + hint);
    },
  };
}

interface StatusResult {
  summary: RegistrySummary;
  cluster?: ClusterView;
}

interface ToolView {
  name: string;
  plugin: string | undefined;
  dynamic: boolean;
}

type CommandResult = { commands: CommandInfo[] } | { outcome: CommandOutcome };

/** Views and policy live in the server mcp-proxy serve builds; a bare manager has none. */
const NO_ACCESS = {
  ok: false as const,
  error: 'views and policy are not available here (no server behind this manager)',
};

/** A failed operation: what went wrong and what to do; the REST status, 400 unless given. */
type Failed = { ok: false; error: string; status?: number };

/** An answer that is either a result or an error message, at the REST and tool doors. */
function okOrError<R extends { ok: true }>(
  answer: (result: R) => ToolReturn,
): Pick<Handler<OperationArgs, R | { ok: false; error: string }>, 'rest' | 'tool'> {
  return {
    rest: (result) =>
      result.ok
        ? { status: 200, body: result }
        : // Some failures say their own status (404 unknown, 409 nothing to do).
          refused((result as Failed).status ?? 400, result.error),
    tool: (result) => (result.ok ? answer(result) : error(result.error)),
  };
}

type PrincipalsResult = { ok: true; principals: SeenPrincipal[] } | { ok: false; error: string };

/**
 * The REST API hands `explain` and the pin operations their body as written: checked here as
 * the tool's schema is.
 */
function checked<S extends z.ZodRawShape>(operation: string, shape: S, args: OperationArgs) {
  const parsed = z.object(shape).safeParse(args);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
  return { ok: false as const, error: `${operation}: ${issues.join('; ')}` };
}

/** The server's pin book, and which servers are loaded; none on a bare manager. */
function pinDesk(manager: PluginManager): PinDesk | undefined {
  const board = manager.pins;
  return board && { board, isLoaded: (server) => manager.registry.isLoaded(server) };
}

/** Pinned definitions live in the server mcp-proxy serve builds; a bare manager has none. */
const NO_PINS = {
  ok: false as const,
  error: 'pinned definitions are not available here (no server behind this manager)',
};

/** `pins_approve` and `pins_reject`: the operator's decision on what waits. */
function pinDecisionHandler(decision: PinDecision, verb: string) {
  return {
    run: async ({ manager, operator }, args) => {
      const desk = pinDesk(manager);
      if (desk === undefined) return NO_PINS;
      const target = checked(`pins_${decision}`, PIN_TARGET, args);
      if ('ok' in target) return target;
      return decidePins(desk, decision, target, operator ?? 'operator');
    },
    ...okOrError((result: PinDecided) => pinDecisionText(verb, result)),
  } satisfies Handler<OperationArgs, PinDecided | Failed>;
}

const byName = (a: ToolView, b: ToolView) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Every operation's handler; each run is recorded in the audit trail (`audited.ts`). */
export const HANDLERS = auditedHandlers({
  load: pluginHandler((c, plugin) => c.manager.load(plugin, { fromCluster: c.fromCluster }), {
    verb: 'Loaded',
    failed: 'load failed',
  }),
  unload: pluginHandler<UnloadResult>(
    (c, plugin) => c.manager.unload(plugin, { fromCluster: c.fromCluster }),
    { verb: 'Unloaded', failed: 'unload failed', removed: true },
  ),
  reload: pluginHandler(
    (c, plugin) =>
      c.manager.reload(plugin, { howToLoad: c.howToLoad?.(plugin), fromCluster: c.fromCluster }),
    { verb: 'Reloaded', failed: 'reload failed' },
  ),
  status: {
    async run({ manager }) {
      const summary = manager.registry.getSummary();
      // Cluster mode: the shared plugin set and how every replica compares with it.
      return manager.clusterView ? { summary, cluster: await manager.clusterView() } : { summary };
    },
    rest: ({ summary, cluster }) => {
      const status = statusJson(summary);
      return { status: 200, body: cluster ? { ...status, cluster } : status };
    },
    tool: ({ summary, cluster }, door) => {
      const shown = pluginStatus({ ...door.status(), summary });
      return cluster ? `${shown}\n${clusterText(cluster)}` : shown;
    },
  } satisfies Handler<OperationArgs, StatusResult>,
  list: {
    run: async ({ manager }) => ({
      plugins: manager.registry.plugins().map((p) => p.name),
      available: await manager.available(),
    }),
    rest: (result) => ({ status: 200, body: result }),
    tool: ({ available }) => {
      if (available.length === 0) return pluginList([]);
      const notLoaded = available.filter((p) => !p.loaded);
      if (notLoaded.length === 0) return '(every available plugin is loaded)';
      return pluginList(notLoaded);
    },
  } satisfies Handler<OperationArgs, { plugins: string[]; available: AvailableEntry[] }>,
  tools: {
    // In the registry's order; the API sorts them by name.
    run: async ({ manager }) =>
      manager.registry.allTools().map((name) => ({
        name,
        plugin: manager.registry.findToolOwner(name),
        dynamic: manager.isDynamicTool(name),
      })),
    rest: (tools) => ({ status: 200, body: { tools: [...tools].sort(byName) } }),
    tool: (all, { mayReach }, { dynamic_only }) => {
      const tools = mayReach ? all.filter((t) => mayReach(t.name)) : all;
      return dynamic_only
        ? toolList(
            tools
              .filter((t) => t.dynamic)
              .map((t) => t.name)
              .sort(),
            '(no dynamic tools loaded)',
          )
        : toolList(tools.map((t) => t.name));
    },
  } satisfies Handler<{ dynamic_only?: boolean }, ToolView[]>,
  command: {
    run: async ({ manager }, { command, args }) =>
      command
        ? { outcome: await manager.commands.run(command, args ?? {}) }
        : { commands: manager.commands.list() },
    rest(result) {
      if ('commands' in result) return { status: 200, body: { commands: result.commands } };
      const { outcome } = result;
      if (!outcome.ok) return refused(outcome.unknown ? 404 : 400, outcome.error);
      return {
        status: 200,
        body: { ok: true, command: outcome.command, result: outcome.result ?? null },
      };
    },
    tool(result) {
      if ('commands' in result) return commandsText(result.commands);
      if (!result.outcome.ok) return error(result.outcome.error);
      return commandResultText(result.outcome.result);
    },
  } satisfies Handler<{ command?: string; args?: Record<string, unknown> }, CommandResult>,
  reload_policy: {
    run: async ({ manager, fromCluster }, _args) =>
      manager.access?.reload({ fromCluster }) ?? NO_ACCESS,
    ...okOrError((result) => reloadText(result)),
  } satisfies Handler<OperationArgs, PolicyReload>,
  explain: {
    run: async ({ manager }, args) => {
      if (manager.access === undefined) return NO_ACCESS;
      const query = checked('explain', EXPLAIN_ARGS, args);
      return 'ok' in query ? query : manager.access.explain(query);
    },
    ...okOrError((result) => explainText(result)),
  } satisfies Handler<OperationArgs, ExplainAnswer>,
  principals: {
    // `principal`: that one alone (what a principal's own tool asks).
    run: async ({ manager }, { principal }) =>
      manager.access
        ? {
            ok: true as const,
            principals: manager.access
              .principals()
              .filter((seen) => principal === undefined || seen.id === principal),
          }
        : NO_ACCESS,
    ...okOrError((result) => principalsText(result)),
  } satisfies Handler<OperationArgs, PrincipalsResult>,
  ...APPROVAL_HANDLERS,
  pins: {
    run: async ({ manager }, { server }) => {
      const desk = pinDesk(manager);
      return desk ? listPins(desk, server as string | undefined) : NO_PINS;
    },
    ...okOrError((result: Extract<PinsAnswer, { ok: true }>) => pinsText(result)),
  } satisfies Handler<OperationArgs, PinsAnswer | Failed>,
  pins_diff: {
    run: async ({ manager }, args) => {
      const desk = pinDesk(manager);
      if (desk === undefined) return NO_PINS;
      const target = checked('pins_diff', PIN_TARGET_LOOSE, args);
      return 'ok' in target ? target : diffPins(desk, target);
    },
    ...okOrError((result: Extract<PinDiffsAnswer, { ok: true }>) => pinDiffsText(result)),
  } satisfies Handler<OperationArgs, PinDiffsAnswer | Failed>,
  pins_approve: pinDecisionHandler('approve', 'Approved'),
  pins_reject: pinDecisionHandler('reject', 'Rejected'),
} satisfies Record<OperationName, unknown>);

/** What one call of an operation gave, as each front door answers it. */
export interface Performed {
  rest(): RestAnswer;
  tool(door: ToolDoor): ToolReturn;
}

/**
 * Runs an operation for a front door that holds its arguments untyped (the REST API and the
 * tools read them from the wire and the table's schema): the one place they meet the handler's
 * types.
 */
export async function perform(
  name: OperationName,
  caller: Caller,
  args: OperationArgs,
): Promise<Performed> {
  const handler = HANDLERS[name] as unknown as Handler<OperationArgs, unknown>;
  const result = await handler.run(caller, args);
  return { rest: () => handler.rest(result), tool: (door) => handler.tool(result, door, args) };
}
