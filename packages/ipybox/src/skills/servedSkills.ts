/**
 * Serves the skills saved from code: the workspace's skills folder becomes a `saved` origin of
 * the host's served skills (`server.skillOrigins`), read again after each save so the new skill
 * is listed at once and clients are told (`resources/list_changed`).
 *
 * One origin per folder, named by it: ipybox and code mode on one workspace serve its skills
 * once; it goes when the last registration that served it ends (a reload keeps it).
 *
 * @module
 */
import { mkdir } from 'node:fs/promises';
import type { PluginServer } from '@mcpbox/framework';
import type { SkillWriter } from './skillWriter.ts';

/** The registrations serving each folder's origin (a reload adds before the old one ends). */
const servers = new Map<string, Set<PluginServer>>();

export async function serveSavedSkills(server: PluginServer, writer: SkillWriter): Promise<void> {
  const origins = server.skillOrigins;
  if (origins === undefined) return; // a host that serves no skills: saved skills stay files
  const origin = `saved:${writer.dir}`;
  writer.afterSave = () => origins.reload(origin);
  // The origin is a folder the catalog reads now: an empty one serves nothing until a save.
  await mkdir(writer.dir, { recursive: true });
  if (!origins.has(origin)) {
    await origins.add(origin, writer.dir, {
      kind: 'saved',
      label: `saved from code (${server.name})`,
    });
  }
  const serving = servers.get(origin) ?? new Set<PluginServer>();
  servers.set(origin, serving.add(server));
  server.onUnload(async () => {
    serving.delete(server);
    if (serving.size > 0) return; // another registration still serves it
    servers.delete(origin);
    await origins.remove(origin);
  });
}
