/**
 * `KernelClient.stream()`'s iterator: an execution that reports its chunks by callback, turned
 * into chunks yielded in order and the result last.
 *
 * @module
 */
import type { ExecutionResult } from './execution.ts';
import type { ExecutionChunk } from './output.ts';

/**
 * Yields the chunks `start` reports, then its result; its error is thrown after the chunks
 * before it. `start` gets one signal for both ways to stop — the caller's `signal`, and the
 * consumer leaving the loop early, which waits for the execution to end.
 */
export async function* chunkStream(
  signal: AbortSignal | undefined,
  start: (
    signal: AbortSignal,
    onChunk: (chunk: ExecutionChunk) => void,
  ) => Promise<ExecutionResult>,
): AsyncGenerator<ExecutionChunk | ExecutionResult, void, undefined> {
  const abort = new AbortController();
  const forward = () => abort.abort();
  signal?.addEventListener('abort', forward, { once: true });
  if (signal?.aborted) abort.abort();
  const chunks: ExecutionChunk[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let outcome: { result: ExecutionResult } | { error: unknown } | undefined;
  const onChunk = (chunk: ExecutionChunk) => {
    chunks.push(chunk);
    wake?.();
  };
  const run = start(abort.signal, onChunk).then(
    (result) => {
      outcome = { result };
    },
    (error: unknown) => {
      outcome = { error };
    },
  );
  void run.finally(() => {
    finished = true;
    wake?.();
  });
  try {
    while (true) {
      const chunk = chunks.shift();
      if (chunk) {
        yield chunk;
        continue;
      }
      if (finished) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    if (outcome && 'error' in outcome) throw outcome.error;
    if (outcome) yield outcome.result;
  } finally {
    signal?.removeEventListener('abort', forward);
    if (!finished) {
      abort.abort();
      await run;
    }
  }
}
