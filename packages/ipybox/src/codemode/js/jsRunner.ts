/**
 * `JsRunner`: `execute_code` with `language: "typescript" | "javascript"`. Each call runs in a
 * fresh isolate (`isolate.ts`); what lasts between calls of one caller is their `session` (JSON,
 * at most `sessionBytes`), their approval gate and nothing else — one caller never sees another's
 * session, and the runner keeps at most `maxCallers` of them (the least recently used goes).
 *
 * `tools.<plugin>.<tool>(args)` (names as the declarations spell them, `types/`) takes the path
 * of a call from Python code: `runToolCall` (the approval
 * gate with code mode's rules, privileged tools) over `catalogConnections` (the catalog's
 * `callTool` as the caller of the running execution: validator, gate, policy, logs, metrics,
 * traces). A refusal reaches the code as a thrown error named as Python's exception
 * (`ToolError`, `ToolNotFound`, `ToolRejected`, ...) whose message names the rule. A call once
 * the execution ended finds no caller to run as and is refused.
 *
 * @module
 */
import {
  type AuditRecorder,
  type CatalogView,
  type Logger,
  type ToolContext,
  UpstreamPool,
} from '@mcpbox/framework';
import type { ApprovalPolicy } from '../../approval/approvalGate.ts';
import type { ToolCall } from '../../approval/approvalRequest.ts';
import { attachCellApprover } from '../../approval/cellApprover.ts';
import type { Elicit } from '../../approval/elicitApprover.ts';
import { sessionApprovalGate } from '../../approval/sessionGate.ts';
import { BoundedText } from '../../kernel/boundedText.ts';
import { TimeoutBudget } from '../../kernel/budget.ts';
import { CodeExecutionError } from '../../kernel/errors.ts';
import type { ExecutionResult } from '../../kernel/execution.ts';
import type { IpyboxSettings } from '../../settings.ts';
import { cellResults, type OpenCellResult, resultAsJson } from '../../toolserver/resultRoute.ts';
import {
  type RunToolCallDeps,
  runToolCall,
  type ToolCallErrorType,
} from '../../toolserver/runToolCall.ts';
import { UpstreamQuestions, type UserAskers } from '../../toolserver/upstreamQuestions.ts';
import { catalogConnections } from '../catalogConnections.ts';
import type { CatalogModules } from '../catalogModules.ts';
import { callableFromCode } from '../layout.ts';
import { runInIsolate } from './isolate.ts';
import {
  type PreparedScript,
  prepareScript,
  type ScriptLanguage,
  ScriptSyntaxError,
} from './prepare.ts';
import { bridgedResult, toolCallPath, toolDeclarations, typeCheck } from './types/index.ts';

/** The error a refused or failed call throws in the code: Python code mode's exception names. */
const ERROR_NAMES: Record<ToolCallErrorType, string> = {
  not_found: 'ToolNotFound',
  tool_error: 'ToolError',
  timeout: 'ToolTimeout',
  rejected: 'ToolRejected',
  approval_timeout: 'ApprovalTimeout',
  approval_unavailable: 'ApprovalUnavailable',
  input_unavailable: 'InputUnavailable',
  bad_request: 'ToolError',
};

export interface JsLimits {
  memoryBytes: number;
  stackBytes: number;
  /** The largest `session`, as JSON characters. */
  sessionBytes: number;
  /** Callers whose session is kept. */
  maxCallers: number;
  /** Characters of output kept (beyond: head and tail, as Python's). */
  maxKeptChars: number;
}

const EMPTY_OUTPUT = {
  text: '',
  stdout: '',
  stderr: '',
  result: undefined,
  displays: [],
  images: [],
};

export const DEFAULT_JS_LIMITS: JsLimits = {
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 1024 * 1024,
  sessionBytes: 1024 * 1024,
  maxCallers: 1000,
  maxKeptChars: 1_000_000,
};

export interface JsRunnerOptions {
  catalog: CatalogView;
  /** Code mode's own plugin name: its tools are not callable from code. */
  self: string;
  modules: CatalogModules;
  settings: IpyboxSettings;
  approvalPolicy?: (call: ToolCall) => ApprovalPolicy;
  /** Where approvals are recorded (`server.audit`). */
  audit?: AuditRecorder;
  logger?: Logger;
  limits?: Partial<JsLimits>;
}

export interface JsRunOptions {
  /** The request running the code: its tool calls run as this caller. */
  context: ToolContext;
  /**
   * Whose `session` this is (the framework's caller key); undefined for a caller with no
   * identity (a 2026 HTTP request without authentication), who keeps no session between calls.
   */
  caller: string | undefined;
  timeoutMs: number;
  elicit: Elicit;
  askUser?: UserAskers;
  signal?: AbortSignal;
  /** TypeScript: type-check against the caller's tool declarations first; nothing runs on errors. */
  check?: boolean;
}

/** What one caller keeps between executions. */
interface CallerState {
  session: string;
  deps: RunToolCallDeps;
  questions: UpstreamQuestions;
  /** The execution running now (set only while it runs). */
  running: { context?: ToolContext };
  /** Stored results, opened as the caller of the execution running now. */
  results: OpenCellResult;
  /** Resolves when this caller's previous execution has ended: one at a time. */
  turn: Promise<void>;
}

export class JsRunner {
  readonly #options: JsRunnerOptions;
  readonly #limits: JsLimits;
  readonly #callers = new Map<string, CallerState>();

  constructor(options: JsRunnerOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_JS_LIMITS, ...options.limits };
  }

  /** Runs `code`; rejects with `CodeExecutionError` (the output so far inside) when it fails. */
  async run(
    code: string,
    language: ScriptLanguage,
    options: JsRunOptions,
  ): Promise<ExecutionResult> {
    const state = this.#stateOf(options.caller);
    const previous = state.turn;
    let release!: () => void;
    state.turn = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      return await this.#run(state, code, language, options);
    } finally {
      release();
    }
  }

  async #run(
    state: CallerState,
    code: string,
    language: ScriptLanguage,
    options: JsRunOptions,
  ): Promise<ExecutionResult> {
    const stdout = new BoundedText({ max: this.#limits.maxKeptChars, marker: true });
    const stderr = new BoundedText({ max: this.#limits.maxKeptChars, marker: true });
    const text = new BoundedText({ max: this.#limits.maxKeptChars });
    const output = () => ({
      text: text.text,
      ...(text.omitted && { omitted: text.omitted }),
      stdout: stdout.text,
      stderr: stderr.text,
      result: undefined,
      displays: [],
      images: [],
    });
    if (options.check && language === 'typescript') await this.#typeCheck(code, options.context);
    let prepared: PreparedScript;
    try {
      prepared = await prepareScript(code, language);
    } catch (error) {
      if (!(error instanceof ScriptSyntaxError)) throw error;
      throw new CodeExecutionError('SyntaxError', error.message, '', output());
    }
    // The clock stops while a human decides an approval or answers an upstream's question.
    const budget = new TimeoutBudget(options.timeoutMs);
    const stop = new AbortController();
    let why: string | undefined;
    const end = (reason: string) => {
      why ??= reason;
      stop.abort(new Error(reason));
    };
    const timedOut = `TimeoutError: the code ran longer than ${options.timeoutMs / 1000} s (its timeout); stopped`;
    budget.start(() => end(timedOut));
    const onAbort = () => end('Cancelled: the request was cancelled');
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const stopDeciding = attachCellApprover(state.deps.approval, budget, options.elicit);
    const stopAsking = state.questions.attach({
      askers: options.askUser ?? {},
      pause: () => budget.pause(),
      resume: () => budget.resume(),
    });
    state.running.context = options.context;
    try {
      const outcome = await runInIsolate(
        prepared.script,
        state.session,
        {
          call: (server, tool, argsJson) => this.#call(state, server, tool, argsJson, stop.signal),
          // Read as the caller of this execution, as Python's mcptools.results.load.
          load: (handle) => resultAsJson(state.results, handle),
          print: (stream, line) => {
            (stream === 'stderr' ? stderr : stdout).append(`${line}\n`);
            text.append(`${line}\n`);
          },
          // Polled while the code runs and keeps the event loop busy: timers cannot fire then.
          stopped: () => {
            if (budget.spent) end(timedOut);
            return stop.signal.aborted;
          },
          ended: new Promise((resolve) => stop.signal.addEventListener('abort', () => resolve())),
        },
        this.#limits,
      );
      if (why !== undefined) {
        const [ename, evalue] = why.split(': ');
        throw new CodeExecutionError(ename!, evalue!, '', output());
      }
      if (!outcome.ok) {
        const where = traceback(
          outcome,
          prepared,
          language === 'typescript' ? 'code.ts' : 'code.js',
        );
        throw new CodeExecutionError(outcome.name, outcome.message, where, output());
      }
      if (outcome.session.length > this.#limits.sessionBytes) {
        throw new CodeExecutionError(
          'SessionTooLarge',
          `session is ${outcome.session.length} characters as JSON, more than the ${this.#limits.sessionBytes} kept; it was not saved (the previous one stays). Keep less in session.`,
          '',
          output(),
        );
      }
      state.session = outcome.session;
      if (outcome.value !== undefined) text.append(outcome.value);
      return { kind: 'result', executionCount: null, ...output() };
    } finally {
      state.running.context = undefined;
      stop.abort(new Error('the execution ended'));
      budget.stop();
      options.signal?.removeEventListener('abort', onAbort);
      stopAsking();
      stopDeciding();
    }
  }

  /** Throws the type errors of `code` against the declarations of the caller's tools. */
  async #typeCheck(code: string, caller: ToolContext): Promise<void> {
    const { catalog, self } = this.#options;
    const tools = catalog
      .tools({ caller })
      .filter(({ plugin, tool }) => callableFromCode(plugin, tool, self));
    const diagnostics = await typeCheck(code, toolDeclarations(tools));
    if (diagnostics.length === 0) return;
    const problems = diagnostics.map(
      (d) => `code.ts:${d.line}:${d.column}: ${d.message} (TS${d.code})`,
    );
    const summary = `${diagnostics.length} type error${diagnostics.length === 1 ? '' : 's'}; nothing ran`;
    throw new CodeExecutionError(
      'TypeCheckError',
      summary,
      [`TypeCheckError: ${summary}`, ...problems].join('\n'),
      EMPTY_OUTPUT,
    );
  }

  /** One bridged call, as Python code mode's tool server runs it. */
  async #call(
    state: CallerState,
    server: string,
    tool: string,
    argsJson: string,
    signal: AbortSignal,
  ): Promise<string> {
    const refused = (name: string, message: string) => Object.assign(new Error(message), { name });
    const location = this.#options.modules.layout.locate(tool);
    if (location === undefined || location.plugin !== server) {
      throw refused(
        'ToolNotFound',
        `${toolCallPath(server, tool)} is not a tool code may call (or not in your view); search_tools lists them`,
      );
    }
    const args = JSON.parse(argsJson) as unknown;
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw refused('TypeError', `${toolCallPath(server, tool)}(args): args must be an object`);
    }
    const reply = await runToolCall(
      state.deps,
      {
        server_name: location.plugin,
        tool_name: location.tool.name,
        tool_args: args as Record<string, unknown>,
      },
      // As the declarations promise (`types/declarations.ts`).
      { signal, shape: (result) => bridgedResult(location.tool, result) },
    );
    if ('error' in reply) throw refused(ERROR_NAMES[reply.type], reply.error);
    return JSON.stringify(reply.result ?? null);
  }

  #stateOf(caller: string | undefined): CallerState {
    const known = caller === undefined ? undefined : this.#callers.get(caller);
    if (caller !== undefined && known) {
      // Most recently used last: the first is the one to forget.
      this.#callers.delete(caller);
      this.#callers.set(caller, known);
      return known;
    }
    const { catalog, modules, settings, approvalPolicy, audit, logger } = this.#options;
    const running: { context?: ToolContext } = {};
    const questions = new UpstreamQuestions(() => settings.approvalTimeoutMs);
    const state: CallerState = {
      session: '{}',
      running,
      results: cellResults(
        (handle, caller) => catalog.openResult(handle, caller),
        () => running.context,
      ),
      questions,
      turn: Promise.resolve(),
      deps: {
        // Only the catalog: servers registered with register_mcp_server are a kernel's own.
        connections: catalogConnections(
          new UpstreamPool(),
          () => running.context,
          catalog,
          modules,
        ),
        approval: sessionApprovalGate({
          settings,
          approvalPolicy,
          audit,
          logger,
          principal: () => running.context?.principal?.id ?? 'anonymous',
        }),
        defaultTimeoutMs: 120_000,
        questions,
      },
    };
    // Without an identity, nothing is kept: anonymous callers would share one session.
    if (caller === undefined) return state;
    this.#callers.set(caller, state);
    if (this.#callers.size > this.#limits.maxCallers) {
      const [oldest] = this.#callers.keys();
      this.#callers.delete(oldest!);
    }
    return state;
  }
}

/**
 * `Name: message` and the frames in the caller's code, at its lines and columns: the prelude's
 * frames and the wrapper's call (`<eval>`) are ours, not theirs.
 */
function traceback(
  { name, message, stack }: { name: string; message: string; stack: string },
  prepared: PreparedScript,
  file: string,
): string {
  const frames = stack
    .split('\n')
    .filter((frame) => frame.includes('(code.js:') && !frame.includes('at <eval>'))
    .map((frame) =>
      frame.replace(/\(code\.js:(\d+):(\d+)\)/, (_, line: string, column: string) => {
        const at = prepared.position(Number(line), Number(column));
        return at ? `(${file}:${at.line}:${at.column})` : `(${file})`;
      }),
    );
  return [`${name}: ${message}`, ...frames].join('\n');
}
