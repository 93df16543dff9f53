/**
 * `KernelSession`: what one MCP session of the ipybox server owns — a kernel (`CodeExecutor`), a
 * tool server that kernel code calls for MCP tools, its upstream connections and its approval
 * gate. Sessions share the workspace (files, packages, `mcptools/`, registered servers) and
 * nothing else: under HTTP two clients never see each other's variables or approvals.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  type AuditRecorder,
  createLogger,
  type Logger,
  type ToolContext,
  type UpstreamParams,
  UpstreamPool,
} from '@mcpbox/framework';
import type { ApprovalGate, ApprovalPolicy } from '../approval/approvalGate.ts';
import { pauseWhileDeciding } from '../approval/approvalQueue.ts';
import type { ToolCall } from '../approval/approvalRequest.ts';
import { attachCellApprover } from '../approval/cellApprover.ts';
import type { Elicit } from '../approval/elicitApprover.ts';
import { sessionApprovalGate } from '../approval/sessionGate.ts';
import { CodeExecutor, type CodeExecutorOptions } from '../executor.ts';
import type { KernelBackend } from '../kernel/backends/backend.ts';
import { chooseKernelBackend } from '../kernel/backends/choose.ts';
import type { SharedRemoteKernel } from '../kernel/backends/jupyterServer.ts';
import { TimeoutBudget } from '../kernel/budget.ts';
import type { ExecutionResult } from '../kernel/execution.ts';
import type { ExecutionChunk } from '../kernel/output.ts';
import { processSocketDir } from '../ownedDirs.ts';
import type { IpyboxSettings } from '../settings.ts';
import { cellResults, type OpenResult } from '../toolserver/resultRoute.ts';
import type { ToolConnections } from '../toolserver/runToolCall.ts';
import { TOOL_SERVER_ENV, ToolServer } from '../toolserver/toolServer.ts';
import type { UserAskers } from '../toolserver/upstreamQuestions.ts';
import { CellHistory } from './cellHistory.ts';

/** What a session needs from the plugin-wide state. */
export interface KernelSessionContext {
  settings: IpyboxSettings;
  /** Host environment for `${VAR}` placeholders in server params. */
  hostEnv: Record<string, string>;
  /** Variables for the kernel (KERNEL_ENV_* stripped, PYTHONPATH), without the tool server's. */
  kernelEnv: Record<string, string>;
  /** The interpreter new kernels use (the workspace venv's once it exists). */
  python(): string;
  /** Servers registered so far (by any session); defined in this session's pool at start. */
  servers: ReadonlyMap<string, UpstreamParams>;
  /** Cluster mode: the kernel on the shared Jupyter server this session drives. */
  sharedKernel?: SharedRemoteKernel;
  /**
   * What kernel code may call: by default the registered servers (`pool`). Code mode adds the
   * catalog's tools, called as the caller of the cell running now (`cell()`; none between cells).
   */
  toolConnections?: (pool: UpstreamPool, cell: () => ToolContext | undefined) => ToolConnections;
  /**
   * Opens a stored tool result for a caller (the host catalog's `openResult`): kernel code's
   * `mcptools.results.load` reads as the caller of the running cell. None: every load refused.
   */
  openResult?: OpenResult;
  /** The approval policy of each call when it differs by tool (code mode's rules). */
  approvalPolicy?: (call: ToolCall) => ApprovalPolicy;
  /** Where kernel code's approvals are recorded (`server.audit`); none: not recorded. */
  audit?: AuditRecorder;
  logger?: Logger;
}

export interface RunCellOptions {
  /** Milliseconds; time waiting for approval is not counted. */
  timeoutMs: number;
  /** Receives output as it arrives. */
  onChunk?: (chunk: ExecutionChunk) => void;
  /** Asks the calling client (approval `elicit`). */
  elicit?: Elicit;
  /** Answers what an upstream tool asks the user while kernel code calls it. */
  askUser?: UserAskers;
  /** The MCP request's signal: the client cancelled, so the cell is interrupted. */
  signal?: AbortSignal;
  /** The request that sent the cell: catalog tools its code calls run as this caller. */
  context?: ToolContext;
}

export class KernelSession {
  readonly id: string;
  readonly #context: KernelSessionContext;
  readonly #logger: Logger;
  readonly #toolServer: ToolServer;
  readonly #pool: UpstreamPool;
  readonly #executor: CodeExecutor;
  #python: string;
  #running = 0;
  /** The context of the cell running now (set only while it runs, not while it waits). */
  readonly #cell: { context?: ToolContext };
  #lastUsed = Date.now();
  #closed = false;
  /** The code of the cells that worked, for `save_skill`'s cell references. */
  readonly history = new CellHistory();

  private constructor(
    id: string,
    context: KernelSessionContext,
    toolServer: ToolServer,
    pool: UpstreamPool,
    cell: { context?: ToolContext },
  ) {
    this.#cell = cell;
    this.id = id;
    this.#context = context;
    this.#logger = context.logger ?? createLogger('ipybox');
    this.#toolServer = toolServer;
    this.#pool = pool;
    this.#python = context.python();
    this.#executor = this.#newExecutor();
  }

  /** Starts the session's tool server; the kernel starts with the first cell. */
  static async open(id: string, context: KernelSessionContext): Promise<KernelSession> {
    const { settings } = context;
    const pool = new UpstreamPool({ env: context.hostEnv, logger: context.logger });
    for (const [name, params] of context.servers) await pool.define(name, params);
    // The running cell's context, shared by the session (writes it) and its tool calls (read it).
    const cell: { context?: ToolContext } = {};
    const approval = sessionApprovalGate({
      settings,
      approvalPolicy: context.approvalPolicy,
      audit: context.audit,
      logger: context.logger,
      principal: () => cell.context?.principal?.id ?? 'anonymous',
    });
    const connections = context.toolConnections?.(pool, () => cell.context) ?? pool;
    // Kernels on this machine call over a Unix socket: less work per call than loopback TCP, and
    // only our user may connect. A sandboxed kernel has no network namespace, so the socket is all
    // it reaches; TCP stays for the others' approval clients. The socket lives in a private
    // directory of this process (not the user's workspace), swept if we are SIGKILLed. Kernels on
    // a Jupyter server call over TCP, at the advertised address.
    const sandboxed = settings.sandbox || settings.sandboxConfig !== undefined;
    const toolServer = await ToolServer.start({
      connections,
      approval,
      results: cellResults(context.openResult, () => cell.context),
      logger: context.logger,
      host: settings.toolServer.bind,
      ...(settings.kernelGateway === undefined && {
        tcp: !sandboxed,
        socketPath: join(await processSocketDir(), `${randomBytes(6).toString('hex')}.sock`),
      }),
    });
    return new KernelSession(id, context, toolServer, pool, cell);
  }

  /** True while a cell runs or waits in this session. */
  get busy(): boolean {
    return this.#running > 0;
  }

  /** `Date.now()` when the last call ended (or the session opened). */
  get lastUsed(): number {
    return this.#lastUsed;
  }

  /** Counts as use: a call reached this kernel (idle reaping must not take it from under it). */
  touch(): void {
    this.#lastUsed = Date.now();
  }

  get kernelPid(): number | undefined {
    return this.#executor.kernelPid;
  }

  /** Where this kernel's tool calls wait for approval (the approval board follows it). */
  get approvalGate(): ApprovalGate {
    return this.#toolServer.approval;
  }

  /** Interrupts the running cell (an operator's button); the kernel and its state stay. */
  interrupt(): void {
    this.#executor.cancelRunning();
  }

  /**
   * Runs one cell. Rejects with the kernel layer's errors (see `output/cellResult.ts`). Cells
   * and approvals wait in the kernel client's one queue: what belongs to the running cell (its
   * approver, its caller) is attached when its turn comes, so it is never a waiting cell's.
   */
  runCell(code: string, options: RunCellOptions): Promise<ExecutionResult> {
    return this.#counted(async () => {
      const budget = new TimeoutBudget(options.timeoutMs);
      const result = await this.#executor.execute(code, {
        timeout: budget,
        signal: options.signal,
        // Chunks by callback rather than through stream()'s iterators: the same order, fewer hops.
        onChunk: options.onChunk,
        onTurn: () => this.#startCell(budget, options),
      });
      this.history.add(result.executionCount, code);
      return result;
    });
  }

  /**
   * Asks this kernel's approval gate about `call`, made by the caller itself rather than by kernel
   * code (`save_skill`): the same policy, rules, approvers and grants as a call from a cell, so
   * what needs an approval is decided in one place. Waits for the running cell, as the approver
   * attached while a cell runs is that cell's. Throws `ApprovalDeniedError` when it may not run.
   */
  approve(
    call: ToolCall,
    options: Pick<RunCellOptions, 'elicit' | 'signal' | 'context'>,
  ): Promise<string | undefined> {
    return this.#counted(() =>
      this.#executor.inTurn(async () => {
        // No clock runs here: the pause the approver asks for has nothing to stop.
        const stopDeciding = this.#attachApprover({ pause() {}, resume() {} }, options.elicit);
        this.#cell.context = options.context;
        try {
          return await this.#toolServer.approval.check(call, { signal: options.signal });
        } finally {
          this.#cell.context = undefined;
          stopDeciding();
        }
      }),
    );
  }

  /** Runs `work` (queued in the kernel client), counting it as use while it runs or waits. */
  async #counted<T>(work: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    this.#running += 1;
    try {
      return await work();
    } finally {
      this.#running -= 1;
      this.#lastUsed = Date.now();
    }
  }

  /**
   * A cell's turn has come: approvals are decided in the loop of the call that runs it (an
   * elicitation goes to the client that sent this cell, the clock stops while the user
   * decides; under `approval: channel` the approval clients decide, the clock still stops), its
   * code's tool calls run as its caller. Returns what ends all that when the cell has ended.
   */
  #startCell(budget: TimeoutBudget, options: RunCellOptions): () => void {
    this.#switchInterpreterIfIdle();
    const stopDeciding = this.#attachApprover(budget, options.elicit);
    const stopAsking = this.#toolServer.questions.attach({
      askers: options.askUser ?? {},
      pause: () => budget.pause(),
      resume: () => budget.resume(),
    });
    this.#cell.context = options.context;
    return () => {
      this.#cell.context = undefined;
      stopAsking();
      stopDeciding();
    };
  }

  /**
   * Who decides while a cell (or an approval) runs: under `approval: channel` the approval
   * clients (WebSocket, mcp-proxy's console), with the clock stopped while they do; otherwise
   * the calling client by elicitation. Returns the detacher.
   */
  #attachApprover(budget: { pause(): void; resume(): void }, elicit: Elicit | undefined) {
    const gate = this.#toolServer.approval;
    return this.#context.settings.approval === 'channel'
      ? pauseWhileDeciding(gate, budget)
      : attachCellApprover(gate, budget, elicit);
  }

  /** Runs code without counting as use (e.g. making a new venv's packages importable). */
  async runQuietly(code: string): Promise<void> {
    if (this.#executor.kernelPid === undefined) return; // not started: it will start from the venv
    await this.#executor.execute(code, { timeout: 10_000 });
  }

  /** Adds or replaces an upstream server this session's kernel may call. */
  async defineServer(name: string, params: UpstreamParams): Promise<void> {
    await this.#pool.define(name, params);
  }

  /** Lists a registered server's tools over this session's (cached) connection. */
  listTools(name: string) {
    return this.#pool.get(name).listTools();
  }

  /** Fresh kernel state; upstream connections closed (they restart on the next call). */
  async reset(): Promise<void> {
    this.#assertOpen();
    this.#running += 1;
    try {
      this.history.clear();
      await this.#toolServer.reset();
      const python = this.#context.python();
      if (python !== this.#python) {
        // The fresh kernel starts from the interpreter that applies now (the workspace venv's).
        this.#python = python;
        this.#executor.useBackend(this.#backend());
      }
      await this.#executor.reset();
    } finally {
      this.#running -= 1;
      this.#lastUsed = Date.now();
    }
  }

  /** Ends the kernel, the tool server and the upstream connections. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([this.#executor.stop(), this.#toolServer.close()]);
    this.#logger.debug(`ipybox kernel ${this.id}: closed`);
  }

  /** A closed session must not start a new kernel process that nobody would ever stop. */
  #assertOpen(): void {
    if (this.#closed) {
      throw new Error(
        `ipybox: kernel ${this.id} was closed while this call reached it (its session ended or it was reaped); nothing ran`,
      );
    }
  }

  /** A kernel that is not running (never started, or died) restarts from the venv interpreter. */
  #switchInterpreterIfIdle(): void {
    // A running kernel keeps its interpreter: asking which one applies costs a stat per cell.
    if (this.#executor.kernelPid !== undefined) return;
    const python = this.#context.python();
    if (python === this.#python) return;
    this.#python = python;
    this.#executor.useBackend(this.#backend());
  }

  /** The tool server's address as the kernel sees it (`tool_server_url` for kernels elsewhere). */
  #toolServerEnv(): Record<string, string> {
    const env = this.#toolServer.kernelEnv();
    const { url, socketPath } = this.#toolServer;
    if (socketPath !== undefined || url === undefined) return env; // local kernels: the socket
    const { advertisedHost } = this.#context.settings.toolServer;
    return { ...env, [TOOL_SERVER_ENV]: `http://${advertisedHost}:${new URL(url).port}` };
  }

  #newExecutor(): CodeExecutor {
    const { settings } = this.#context;
    const options: CodeExecutorOptions = {
      workingDir: settings.workspace,
      imagesDir: settings.imagesDir,
      kernelEnv: { ...this.#context.kernelEnv, ...this.#toolServerEnv() },
      backend: this.#backend(),
    };
    return new CodeExecutor(options);
  }

  /** How this session's kernels start, with the interpreter `#python`. */
  #backend(): KernelBackend {
    const { settings } = this.#context;
    const { kernelGateway } = settings;
    return chooseKernelBackend({
      python: this.#python,
      sandbox: settings.sandbox,
      sandboxConfig: settings.sandboxConfig,
      jupyterServer: kernelGateway && { ...kernelGateway, shared: this.#context.sharedKernel },
    });
  }
}
