/**
 * Waiting in tests: poll a condition with a generous deadline (a loaded 2-core machine), never
 * sleep for a fixed time. The error names what was awaited.
 *
 * @module
 */

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
