/**
 * `mcp-proxy openapi inspect SPEC`: the tools an `openapi:` plugin would serve from a document
 * (names, operations, parameters) and what it leaves out and why, without starting anything.
 * `--include`/`--exclude` try the selection the plugin entry would use.
 *
 * @module
 */
import { errorMessage, inspectOpenApi, renderInspection } from '@mcpbox/framework';
import { fail } from './exit.ts';

export async function openapiInspect(
  spec: string,
  selection: { include?: string[]; exclude?: string[] },
): Promise<void> {
  let inspected: Awaited<ReturnType<typeof inspectOpenApi>>;
  try {
    inspected = await inspectOpenApi(spec, selection);
  } catch (error) {
    throw fail(errorMessage(error));
  }
  process.stdout.write(`${renderInspection(inspected.title, inspected.toolSet)}\n`);
}
