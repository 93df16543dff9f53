/**
 * A plugin's skills as origins of the {@link SkillRegistry}: its folder's `skills/` subfolder
 * (folder plugins only: a single-file plugin's folder is shared with other plugins), then each
 * `registerSkills` call, named `plugin:<name>`, `plugin:<name>#2`, … They follow the plugin:
 * a reload replaces them, an unload removes them.
 *
 * @module
 */
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../contract/logger.ts';
import { errorMessage } from '../errors.ts';
import type { PluginSource } from '../plugins/load.ts';
import type { SkillRegistry } from './registry.ts';
import type { SkillSource } from './types.ts';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The plugin's own folder, for a folder plugin. */
function pluginFolder(source: PluginSource | undefined): string | undefined {
  return source?.kind === 'file' && source.watch === source.root ? source.root : undefined;
}

function originsOf(skills: SkillRegistry, plugin: string): string[] {
  const base = `plugin:${plugin}`;
  return skills
    .origins()
    .map((o) => o.origin)
    .filter((o) => o === base || o.startsWith(`${base}#`));
}

/** Serves what the plugin's registration offers, replacing what an earlier one did. */
export async function servePluginSkills(
  skills: SkillRegistry | undefined,
  plugin: string,
  source: PluginSource | undefined,
  registered: ReadonlyArray<string | SkillSource>,
  logger: Logger,
): Promise<void> {
  if (!skills) return;
  const folder = pluginFolder(source);
  const base = folder ?? process.cwd();
  const offered: Array<string | SkillSource> = [];
  if (folder && isDirectory(join(folder, 'skills'))) offered.push(join(folder, 'skills'));
  for (const from of registered)
    offered.push(typeof from === 'string' ? resolve(base, from) : from);
  const names = offered.map((_, i) => (i === 0 ? `plugin:${plugin}` : `plugin:${plugin}#${i + 1}`));
  for (const stale of originsOf(skills, plugin)) {
    if (!names.includes(stale)) await skills.remove(stale);
  }
  for (const [i, from] of offered.entries()) {
    try {
      await skills.add(names[i], from, { kind: 'plugin', label: plugin });
    } catch (error) {
      // The plugin serves its tools all the same; only these skills are missing.
      logger.warn(`plugin ${plugin}: its skills are not served: ${errorMessage(error)}`);
      await skills.remove(names[i]);
    }
  }
}

/** The plugin is gone: so are its skills. */
export async function dropPluginSkills(
  skills: SkillRegistry | undefined,
  plugin: string,
): Promise<void> {
  if (!skills) return;
  for (const origin of originsOf(skills, plugin)) await skills.remove(origin);
}
