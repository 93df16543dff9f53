/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a `tools/call` of a tool that
 * opts in (`keepsRunning: { tasks: true }`) from a client that declared the extension returns a
 * task handle at once (`resultType: "task"`) and runs on as a {@link DetachedCall}; the client
 * polls `tasks/get`, answers questions with `tasks/update`, and stops it with `tasks/cancel`.
 *
 * Who gets a task: a request that carries the extension in its own capabilities
 * (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`) — a 2026-07-28 request's
 * envelope, or the same key in a 2025 request's `_meta`. The extension forbids a task result to a
 * request without it "regardless of prior declarations", so a 2025 client that listed the
 * extension at `initialize` only (the MCP Inspector CLI does) gets the plain result: the call
 * answers when done. The task result is the extension's, `resultType: "task"` in both eras (the
 * SDK's `tools/call` result check adds an empty `content`). The 2025 core's own `params.task` is
 * another mechanism, untouched here. `tasks/*` answer -32021 to a client that declared the
 * extension nowhere (a 2025 client's `initialize` counts there: it only reads what it was given).
 *
 * What a poll shows: `working`, `input_required` (with the questions as `inputRequests`),
 * `completed` (the tool result, a tool error included, as `result`), `failed` (a protocol error
 * as `error`) or `cancelled`. `statusMessage` carries the progress messages the handler sent so
 * far (the tail of them), so a long cell's output shows while it runs. Task ids are unguessable
 * and belong to the principal that created the task: another caller's id is "not found". A
 * finished task is kept for its `ttlMs`, then forgotten; a running one is kept until it ends.
 *
 * Status notifications (`notifications/tasks` on `subscriptions/listen`) are not sent: clients
 * poll, which the extension makes the default.
 *
 * @module
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequest,
  MissingRequiredClientCapabilityError,
  type Notification,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { RequestExtra } from '../contract/tool.ts';
import { errorMessage } from '../errors.ts';
import { DetachedCall } from './detachedCall.ts';
import { answerOf, callDigest, principalOf } from './inputRounds.ts';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How long a finished task stays readable. */
export const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
const POLL_INTERVAL_MS = 1000;
/** The tail of the progress messages a poll shows as `statusMessage`. */
const STATUS_MESSAGE_CHARS = 4000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

class Task {
  readonly call: DetachedCall;
  readonly ttlMs: number;
  readonly pollIntervalMs = POLL_INTERVAL_MS;
  cancelled = false;
  #progress = '';

  constructor(call: DetachedCall, ttlMs: number) {
    this.call = call;
    this.ttlMs = ttlMs;
  }

  get id(): string {
    return this.call.id;
  }

  get status(): TaskStatus {
    if (this.cancelled) return 'cancelled';
    const outcome = this.call.outcome;
    if (outcome) return outcome.ok ? 'completed' : 'failed';
    return this.call.questions.length > 0 ? 'input_required' : 'working';
  }

  /** Keeps what the handler reported while nobody was waiting: the tail of its progress. */
  heard(notification: Notification): void {
    if (notification.method !== 'notifications/progress') return;
    const message = (notification.params as { message?: unknown } | undefined)?.message;
    if (typeof message !== 'string' || message === '') return;
    this.#progress = (this.#progress + message).slice(-STATUS_MESSAGE_CHARS);
    this.call.lastUpdatedAt = new Date();
  }

  /** The `Task` fields every view carries. */
  summary(): Record<string, unknown> {
    const view: Record<string, unknown> = {
      taskId: this.id,
      status: this.status,
      createdAt: this.call.createdAt.toISOString(),
      lastUpdatedAt: this.call.lastUpdatedAt.toISOString(),
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
    };
    if (this.#progress !== '') view.statusMessage = this.#progress;
    return view;
  }

  /** What `tasks/get` answers: the summary plus the result, the error or the questions. */
  detailed(): Record<string, unknown> {
    const view = this.summary();
    const status = view.status as TaskStatus;
    const outcome = this.call.outcome;
    if (status === 'completed' && outcome?.ok) view.result = outcome.value;
    else if (status === 'failed' && outcome && !outcome.ok) view.error = errorObject(outcome.error);
    else if (status === 'input_required') {
      const requests: Record<string, InputRequest> = {};
      for (const question of this.call.questions) requests[question.key] = question.request;
      view.inputRequests = requests;
    }
    return view;
  }
}

/** A JSON-RPC error object for a failed task. */
function errorObject(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof ProtocolError) {
    return error.data === undefined
      ? { code: error.code, message: error.message }
      : { code: error.code, message: error.message, data: error.data };
  }
  return { code: ProtocolErrorCode.InternalError, message: errorMessage(error) };
}

/** Every task of this process (2026 HTTP builds a session per request, so it cannot live in one). */
class TaskTable {
  readonly #tasks = new Map<string, Task>();

  add(task: Task): void {
    this.#tasks.set(task.id, task);
  }

  /** The task `id` of `principal`; another principal's task is as good as unknown. */
  get(id: string, principal: string): Task {
    const task = this.#tasks.get(id);
    if (!task || task.call.principal !== principal) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Task ${id} not found (it never existed, expired after its ttlMs, or belongs to another caller)`,
      );
    }
    return task;
  }

  /** Forgets `task` once it has been finished for its ttlMs. */
  expireWhenDone(task: Task): void {
    void task.call.settled.then(() => {
      setTimeout(() => this.#tasks.delete(task.id), task.ttlMs).unref();
    });
  }
}

const tasks = new TaskTable();

function listsTasks(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)
    ?.extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * Whether this request itself carries the Tasks extension in its capabilities: the one test for
 * answering with a task (SEP-2663), in both eras.
 */
export function requestDeclaresTasks(extra: RequestExtra): boolean {
  const envelope = extra.mcpReq.envelope as Record<string, unknown> | undefined;
  const meta = extra.mcpReq._meta as Record<string, unknown> | undefined;
  return listsTasks(
    envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? meta?.[CLIENT_CAPABILITIES_META_KEY],
  );
}

/** Whether the client declared the extension at all: this request, or a 2025 `initialize`. */
function clientDeclaresTasks(extra: RequestExtra): boolean {
  if (requestDeclaresTasks(extra)) return true;
  return extra.era === 'legacy' && listsTasks(extra.clientCapabilities);
}

/** The -32021 error naming the extension, for a client that did not declare it. */
export function tasksRequired(message: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } as ClientCapabilities },
    message,
  );
}

/**
 * Starts `run` as a task and returns the `CreateTaskResult`. The handler's questions wait in the
 * task (`input_required` on a poll) for `tasks/update`, up to `inputTimeoutMs` each.
 */
export function startTask(
  extra: RequestExtra,
  call: { name: string; args: unknown },
  options: { inputTimeoutMs?: number; taskTtlMs?: number },
  run: (ctx: RequestExtra, detached: DetachedCall) => Promise<unknown>,
): Record<string, unknown> {
  let task: Task | undefined;
  const detached = new DetachedCall({
    principal: principalOf(extra),
    call: callDigest('tools/call', call.name, call.args),
    inputTimeoutMs: options.inputTimeoutMs,
    onIdleNotification: (notification) => task?.heard(notification),
  });
  task = new Task(detached, options.taskTtlMs ?? DEFAULT_TASK_TTL_MS);
  tasks.add(task);
  tasks.expireWhenDone(task);
  // Handlers stream progress only when asked for it: a task always listens (statusMessage).
  const meta = { ...extra.mcpReq._meta, progressToken: `task-${detached.id}` };
  const ctx = detached.contextFrom(extra, meta);
  detached.start(() => run(ctx, detached));
  return { resultType: 'task', ...task.summary() };
}

const taskIdParams = z.looseObject({ taskId: z.string() });
// A 2026 request's `inputResponses` is lifted out of the params by the SDK (ctx.mcpReq).
const updateParams = z.looseObject({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

/** Registers `tasks/get`, `tasks/update` and `tasks/cancel` on one SDK server. */
export function registerTaskMethods(
  server: Server,
  wrap: <Q, R>(
    handler: (request: Q, extra: RequestExtra) => Promise<R>,
  ) => (request: Q, ctx: never) => Promise<R>,
): void {
  const find = (extra: RequestExtra, taskId: string): Task => {
    if (!clientDeclaresTasks(extra)) {
      throw tasksRequired(
        `tasks/* needs the ${TASKS_EXTENSION} extension in the client's capabilities`,
      );
    }
    return tasks.get(taskId, principalOf(extra));
  };
  const register = server.setRequestHandler.bind(server) as unknown as (
    method: string,
    schemas: { params: z.ZodType },
    handler: (params: never, ctx: never) => Promise<unknown>,
  ) => void;

  register(
    'tasks/get',
    { params: taskIdParams },
    wrap(async (params: { taskId: string }, extra) => find(extra, params.taskId).detailed()),
  );

  register(
    'tasks/update',
    { params: updateParams },
    wrap(async (params: { taskId: string; inputResponses?: Record<string, unknown> }, extra) => {
      const task = find(extra, params.taskId);
      const responses = extra.mcpReq.inputResponses ?? params.inputResponses ?? {};
      const waiting = new Map(task.call.questions.map((q) => [q.key, q]));
      // Checked first, delivered after: a malformed answer leaves every question waiting.
      const answers: [string, unknown][] = [];
      for (const [key, question] of waiting) {
        if (!Object.hasOwn(responses, key)) continue;
        answers.push([key, answerOf(responses, key, question.kind)]);
      }
      for (const [key, value] of answers) task.call.answer(key, value);
      return {};
    }),
  );

  register(
    'tasks/cancel',
    { params: taskIdParams },
    wrap(async (params: { taskId: string }, extra) => {
      const task = find(extra, params.taskId);
      if (task.status === 'working' || task.status === 'input_required') {
        task.cancelled = true;
        task.call.abort(new Error('The task was cancelled (tasks/cancel)'));
      }
      return {};
    }),
  );
}
