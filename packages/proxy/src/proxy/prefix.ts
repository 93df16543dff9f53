/**
 * Which prefix a plugin's tool and prompt names get. The registry applies it (`${prefix}_name`,
 * never twice, explicit `registerTool` names included); this only decides the prefix:
 *
 * - a per-plugin `prefix:` string wins; `prefix: false` (or `''`) means none;
 * - otherwise `auto_prefix: true` uses the plugin name (an npm scope or path reduced to its last
 *   segment, anything outside `[A-Za-z0-9_-]` turned into `_`, so names stay valid tool names);
 * - otherwise no prefix.
 *
 * @module
 */

export function pluginPrefix(
  name: string,
  settings: { prefix?: unknown },
  autoPrefix: boolean,
): string | false {
  const explicit = settings.prefix;
  if (explicit === false || explicit === '') return false;
  if (typeof explicit === 'string') return explicit;
  if (!autoPrefix) return false;
  return name.slice(name.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9_-]/g, '_');
}
