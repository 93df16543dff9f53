/**
 * Mirrored servers' skills as origins of the server's skill registry (`server.skills`), following
 * the plugin's registrations: each `register()` offers its skills and withdraws them from its
 * `onUnload`. The registry's transactions decide which registration serves: a successful reload
 * withdraws the old one after the new one offered (the new one stays), a failed one withdraws
 * the new one (the old one is offered again), an unload the last one (the origin goes).
 *
 * @module
 */
import type { Logger } from '../contract/logger.ts';
import { errorMessage } from '../errors.ts';
import type { SkillRegistry } from '../skills/registry.ts';
import type { UpstreamSkills } from './upstreamSkills.ts';

/** Where a mirror offers its skills; `offer` returns the withdrawal for its `onUnload`. */
export interface SkillOffers {
  offer(plugin: string, skills: UpstreamSkills): () => Promise<void>;
}

export function upstreamSkillOrigins(registry: SkillRegistry, logger: Logger): SkillOffers {
  /** Per plugin, its live registrations' skills, the latest last: the latest is served. */
  const live = new Map<string, UpstreamSkills[]>();
  const serve = async (plugin: string) => {
    const latest = live.get(plugin)?.at(-1);
    try {
      if (latest === undefined) await registry.remove(plugin);
      else await registry.add(plugin, latest, { kind: 'upstream', label: plugin, plugin });
    } catch (error) {
      logger.warn(`upstream '${plugin}': its skills cannot be served: ${errorMessage(error)}`);
    }
  };
  return {
    offer(plugin, skills) {
      const registrations = live.get(plugin) ?? [];
      live.set(plugin, [...registrations, skills]);
      const served = serve(plugin);
      return async () => {
        await served;
        const left = (live.get(plugin) ?? []).filter((s) => s !== skills);
        const before = live.get(plugin)?.at(-1);
        if (left.length === 0) live.delete(plugin);
        else live.set(plugin, left);
        if (left.at(-1) !== before) await serve(plugin);
      };
    },
  };
}
