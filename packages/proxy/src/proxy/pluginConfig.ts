/**
 * A plugin's settings: its `plugins.{name}` entry in the proxy config, with keys overridden by
 * `config.yaml` files — first `{plugin-dir}/{name}/config.yaml` (settings shipped beside the
 * plugin), then `{plugin_config_dir}/{name}/config.yaml` (the user's own, default
 * `~/mcp_plugins`). String values may use `${VAR}` / `${VAR:-default}`, expanded from the
 * environment at each load, so a reload picks up a changed file or variable.
 *
 * The anchor's proxy let a file *replace* the entry and never expanded variables; here a file
 * overrides only the keys it names.
 *
 * @module
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PluginConfig, PluginEntry } from '@mcpbox/framework';
import { interpolateTree } from '@mcpbox/framework';
import { parseDocument } from 'yaml';

export interface PluginConfigSources {
  /** The `plugins.{name}` entry of the proxy config, if any. */
  entry: PluginEntry | undefined;
  /** Plugin directories, searched in order; the first `{dir}/{name}/config.yaml` counts. */
  pluginDirs: readonly string[];
  /** The user's per-plugin config directory (`plugin_config_dir`). */
  pluginConfigDir: string;
  env: Readonly<Record<string, string | undefined>>;
}

export type PluginConfigResult =
  | { ok: true; config: PluginConfig; files: string[] }
  | { ok: false; error: string };

/** The file name used for a plugin: npm scopes and paths reduce to their last segment. */
function folderName(name: string): string {
  return name.slice(name.lastIndexOf('/') + 1);
}

type FileLayer = { ok: true; layer: PluginConfig | undefined } | { ok: false; error: string };

function readLayer(file: string, env: PluginConfigSources['env']): FileLayer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, layer: undefined };
    return { ok: false, error: `${file}: cannot read (${(error as Error).message})` };
  }
  const document = parseDocument(text);
  if (document.errors.length > 0) {
    return {
      ok: false,
      error: `${file}: invalid YAML: ${document.errors[0].message.split('\n')[0]}`,
    };
  }
  const raw: unknown = document.toJS() ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, error: `${file}: expected a mapping of plugin settings` };
  }
  const { value, issues } = interpolateTree(raw, env);
  if (issues.length > 0) {
    const issue = issues[0];
    return { ok: false, error: `${file}: ${issue.path.join('.')}: ${issue.message}` };
  }
  return { ok: true, layer: value as PluginConfig };
}

/** Reads and merges a plugin's settings; a broken file is an error naming the file and key. */
export function resolvePluginConfig(
  name: string,
  sources: PluginConfigSources,
): PluginConfigResult {
  const folder = folderName(name);
  const candidates: string[] = [];
  const shipped = sources.pluginDirs
    .map((dir) => join(dir, folder, 'config.yaml'))
    .find((file) => existsSync(file));
  if (shipped) candidates.push(shipped);
  const own = join(sources.pluginConfigDir, folder, 'config.yaml');
  if (!candidates.includes(own)) candidates.push(own);

  let config: PluginConfig = { ...(sources.entry ?? {}) };
  const files: string[] = [];
  for (const file of candidates) {
    const read = readLayer(file, sources.env);
    if (!read.ok) return read;
    if (read.layer === undefined) continue;
    config = { ...config, ...read.layer };
    files.push(file);
  }
  return { ok: true, config, files };
}
