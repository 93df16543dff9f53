/**
 * One JavaScript execution in a fresh QuickJS runtime (WebAssembly, `quickjs-emscripten`): the
 * code sees the language and four things we put there — `tools` (the bridge: each call leaves
 * as JSON through `call`), `results` (`results.load(handle)`: a stored result, through `load`),
 * `console` (text through `print`) and `session` (the JSON the caller kept) — and nothing of the
 * host: no `process`, `require`, `fetch`, `import()` of files, timers
 * or host objects. Values cross only as JSON text, so no host object, prototype or function is
 * ever reachable from the code.
 *
 * Each execution has its own runtime, disposed at its end: nothing one execution leaves on
 * `globalThis` reaches the next, an infinite loop or a memory bomb ends with its runtime, and the
 * WebAssembly module (loaded once per process) stays usable for the next call.
 *
 * Limits: `memoryBytes` (QuickJS's allocator refuses past it: a clear `out of memory`), a stack
 * size, and the interrupt handler, polled by the interpreter, which stops the code once
 * `stopped()` says so (the time limit ran out, the request was cancelled).
 *
 * @module
 */
import {
  getQuickJS,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

/** What the code's bridge and console reach on the host. */
export interface IsolateHost {
  /** A tool call: JSON text of the result, or a rejection whose message the code sees. */
  call(server: string, tool: string, argsJson: string): Promise<string>;
  /** `results.load(handle)`: the stored result as JSON text, or a rejection the code sees. */
  load(handle: string): Promise<string>;
  print(stream: 'stdout' | 'stderr', text: string): void;
  /** Polled while code runs: true ends it (reported by `run`'s caller, who knows why). */
  stopped(): boolean;
  /** Resolves when the execution must end while code waits (on a tool call, say). */
  ended: Promise<void>;
}

export interface IsolateLimits {
  memoryBytes: number;
  stackBytes: number;
}

/** The value of the code's last expression as text, and the session as JSON. */
export type IsolateOutcome =
  | { ok: true; value: string | undefined; session: string }
  | { ok: false; name: string; message: string; stack: string; session?: string };

let module: Promise<QuickJSWASMModule> | undefined;

/** The WebAssembly module, compiled on first use (tens of ms) and shared by every execution. */
export function quickJs(): Promise<QuickJSWASMModule> {
  module ??= getQuickJS();
  return module;
}

/**
 * Runs in the isolate before the code: builds `tools`, `console` and `session` over the host
 * functions, then removes those from `globalThis` so the code can only use them through what
 * they guard. `__run(fn)` (the wrapped code calls it once; it removes itself) reports the value
 * of `fn()` and the session as JSON through `done`.
 */
const PRELUDE = `(() => {
  const { __call: call, __load: load, __print: print, __done: done } = globalThis;
  delete globalThis.__call; delete globalThis.__load; delete globalThis.__print; delete globalThis.__done;
  const show = (v) => typeof v === 'string' ? v : (v instanceof Error ? String(v) : (JSON.stringify(v) ?? String(v)));
  const line = (args) => args.map(show).join(' ');
  const out = (...a) => print('stdout', line(a)), err = (...a) => print('stderr', line(a));
  globalThis.console = Object.freeze({ log: out, info: out, debug: out, warn: err, error: err });
  const server = (name) => new Proxy(Object.create(null), {
    get: (_, tool) => typeof tool !== 'string' ? undefined : async (args = {}) => {
      const text = await call(name, tool, JSON.stringify(args));
      return text === undefined ? undefined : JSON.parse(text);
    },
  });
  globalThis.tools = new Proxy(Object.create(null), {
    get: (_, name) => typeof name === 'string' ? server(name) : undefined,
  });
  globalThis.results = Object.freeze({
    load: async (handle) => JSON.parse(await load(String(handle?.handle ?? handle?.uri ?? handle))),
  });
  const fail = (e) => done(false, JSON.stringify({
    name: String(e?.name ?? 'Error'), message: String(e?.message ?? e), stack: String(e?.stack ?? ''),
  }));
  globalThis.__run = (fn) => {
    delete globalThis.__run;
    fn().then((v) => {
      let session;
      try { session = JSON.stringify(globalThis.session ?? null); }
      catch (e) { return fail({ name: 'TypeError', message: 'session is not JSON-serializable: ' + e.message }); }
      done(true, JSON.stringify({ value: v === undefined ? null : show(v), session }));
    }, fail);
  };
})();`;

/**
 * Runs `script` (already wrapped by `prepare.ts`: `__run(async () => ...)`) with `sessionJson`
 * as `session`.
 */
export async function runInIsolate(
  script: string,
  sessionJson: string,
  host: IsolateHost,
  limits: IsolateLimits,
): Promise<IsolateOutcome> {
  const loaded = quickJs();
  const runtime = (await loaded).newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => host.stopped());
  const ctx = runtime.newContext();
  // Every handle we hand out must be disposed before the runtime is (QuickJS aborts otherwise).
  const pending = new Set<QuickJSDeferredPromise>();
  let outcome!: (result: IsolateOutcome) => void;
  let over = false;
  const finished = new Promise<IsolateOutcome>((resolve) => {
    outcome = (result) => {
      over = true;
      resolve(result);
    };
  });
  const pump = () => {
    if (!ctx.alive) return;
    const jobs = runtime.executePendingJobs();
    if (jobs.error) outcome(failure(ctx, jobs.error));
  };
  try {
    define(ctx, host, pending, pump, outcome, () => over);
    const setup = ctx.evalCode(`globalThis.session = ${sessionJson};\n${PRELUDE}`, 'prelude.js');
    if (setup.error) return failure(ctx, setup.error);
    setup.value.dispose();
    const started = ctx.evalCode(script, 'code.js');
    if (started.error) return failure(ctx, started.error);
    started.value.dispose();
    pump();
    const stopped = host.ended.then(
      (): IsolateOutcome => ({ ok: false, name: 'Stopped', message: 'stopped', stack: '' }),
    );
    return await Promise.race([finished, stopped]);
  } finally {
    release(loaded, () => {
      for (const deferred of pending) deferred.dispose();
      pending.clear();
      ctx.dispose();
      runtime.dispose();
    });
  }
}

/** Frees an execution's runtime; a WebAssembly abort there makes the next one load a new module. */
function release(loaded: Promise<QuickJSWASMModule>, free: () => void): void {
  try {
    free();
  } catch {
    if (module === loaded) module = undefined;
  }
}

/** `__call`, `__load`, `__print` and `__done`: the only host functions the isolate gets. */
function define(
  ctx: QuickJSContext,
  host: IsolateHost,
  pending: Set<QuickJSDeferredPromise>,
  pump: () => void,
  outcome: (result: IsolateOutcome) => void,
  over: () => boolean,
): void {
  /** A host function the code awaits: its promise settles with the host's answer. */
  const bridged = (
    name: string,
    run: (args: string[]) => Promise<string>,
    what: (args: string[]) => string,
  ) =>
    ctx.newFunction(name, (...handles: QuickJSHandle[]) => {
      const args = handles.map((h) => ctx.getString(h));
      // Code still queued when the execution ended (a promise nobody awaited) calls for nobody.
      if (over()) {
        throw Object.assign(new Error(`${what(args)}: refused: the execution has ended`), {
          name: 'ToolRejected',
        });
      }
      const deferred = ctx.newPromise();
      pending.add(deferred);
      const settle = (make: () => QuickJSHandle, ok: boolean) => {
        // The execution ended meanwhile: its runtime (and this promise) are gone.
        if (!pending.delete(deferred) || !ctx.alive) return;
        const handle = make();
        if (ok) deferred.resolve(handle);
        else deferred.reject(handle);
        handle.dispose();
        deferred.dispose();
        pump();
      };
      run(args).then(
        (json) => settle(() => ctx.newString(json), true),
        (error: Error) =>
          settle(() => ctx.newError({ name: error.name, message: error.message }), false),
      );
      return deferred.handle;
    });
  const call = bridged(
    'call',
    ([server, tool, args]) => host.call(server!, tool!, args!),
    ([server, tool]) => `tools.${server}.${tool}`,
  );
  const load = bridged(
    'load',
    ([handle]) => host.load(handle!),
    () => 'results.load',
  );
  const print = ctx.newFunction('print', (streamH, textH) => {
    if (over()) return;
    host.print(ctx.getString(streamH) === 'stderr' ? 'stderr' : 'stdout', ctx.getString(textH));
  });
  const done = ctx.newFunction('done', (okH, jsonH) => {
    const ok = ctx.dump(okH) === true;
    const fields = JSON.parse(ctx.getString(jsonH)) as Record<string, string | null>;
    outcome(
      ok
        ? { ok: true, value: fields.value ?? undefined, session: fields.session ?? 'null' }
        : {
            ok: false,
            name: fields.name ?? 'Error',
            message: fields.message ?? '',
            stack: fields.stack ?? '',
          },
    );
  });
  for (const [name, fn] of [
    ['__call', call],
    ['__load', load],
    ['__print', print],
    ['__done', done],
  ] as const) {
    ctx.setProp(ctx.global, name, fn);
    fn.dispose();
  }
}

function failure(ctx: QuickJSContext, error: QuickJSHandle): IsolateOutcome & { ok: false } {
  const dumped = ctx.dump(error) as unknown;
  error.dispose();
  if (dumped !== null && typeof dumped === 'object') {
    const { name, message, stack } = dumped as Record<string, unknown>;
    return {
      ok: false,
      name: typeof name === 'string' ? name : 'Error',
      message: typeof message === 'string' ? message : JSON.stringify(dumped),
      stack: typeof stack === 'string' ? stack : '',
    };
  }
  return { ok: false, name: 'Error', message: String(dumped), stack: '' };
}
