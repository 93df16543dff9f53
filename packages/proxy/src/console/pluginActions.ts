/**
 * The plugins page's buttons: the operations of `operations/table.ts` marked for the console,
 * posted to `/console/plugins/<operation>` and run through the operation's handler, so a
 * console click behaves as the same operation from REST, the CLI or a tool. The buttons
 * themselves are written in `pages.ts`: which of them a row offers depends on the row (Load for
 * a plugin that is not loaded, Reload and Unload for one that is), which the table cannot say.
 *
 * @module
 */
import { HANDLERS, OPERATORS } from '../operations/handlers.ts';
import { OPERATIONS } from '../operations/table.ts';
import type { PluginManager } from '../proxy/manager.ts';

/** The console operation a form posts to `path`, if any. */
export function pluginActionAt(path: string) {
  for (const operation of OPERATIONS) {
    if ('console' in operation && path === `/console/plugins/${operation.name}`) return operation;
  }
  return undefined;
}

/** Runs a console operation on one plugin; the message the next page shows. */
export async function runPluginAction(
  manager: PluginManager,
  operation: NonNullable<ReturnType<typeof pluginActionAt>>,
  name: string,
): Promise<{ ok: boolean; text: string }> {
  const action = operation.name;
  const result = await HANDLERS[action].run(
    { manager, howToLoad: (plugin) => `the Load button of ${plugin}`, operator: OPERATORS.console },
    { plugin: name },
  );
  // The manager remembers the error for the plugins page, as for every other path.
  if (!result.ok) return { ok: false, text: result.error ?? `${action} failed` };
  const tools = operation.console?.flashTools ? `: ${result.tools.join(', ') || 'no tools'}` : '';
  return { ok: true, text: `${action}ed ${name}${tools}` };
}
