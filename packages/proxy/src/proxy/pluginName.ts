/**
 * What a plugin name may look like when a running proxy is asked to load, unload or reload one
 * (REST API, `mcp-proxy load`, `proxy__load`, …): a name looked up in the plugin directories and
 * the `plugins:` entries, or an npm package specifier — never a path. Without this rule
 * `POST /proxy/load {"plugin":"../../etc/passwd"}` resolved the name as a file and imported it.
 * A plugin elsewhere on disk is named in the configuration instead (`plugins.NAME.path`), which
 * only the operator writes.
 *
 * @module
 */

/** `echo`, `my-plugin`, `tools.v2`, `@scope/package`: a leading letter, digit or `_` per part. */
const PLUGIN_NAME = /^(@[A-Za-z0-9_][\w.-]*\/)?[A-Za-z0-9_][\w.-]*$/;
const MAX_SHOWN = 80;

/** The rule, worded for error messages. */
export const PLUGIN_NAME_RULE =
  "plugin names are names such as 'echo', 'my-plugin', 'tools.v2' or an npm package such as " +
  "'@scope/package', never paths (a plugin elsewhere on disk gets a plugins.NAME.path entry " +
  'in the configuration)';

/** `undefined` for an acceptable name, else an error message that states the rule. */
export function pluginNameError(name: string): string | undefined {
  if (PLUGIN_NAME.test(name)) return undefined;
  const shown = name.length > MAX_SHOWN ? `${name.slice(0, MAX_SHOWN)}…` : name;
  return `Invalid plugin name ${JSON.stringify(shown)}: ${PLUGIN_NAME_RULE}`;
}
