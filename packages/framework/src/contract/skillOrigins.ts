/**
 * The server's served skills by origin (SEP-2640), as a plugin that writes skills at run time
 * sees them (`server.skillOrigins`): ipybox serves the skills saved from code as a `saved`
 * origin over its workspace's folder and reads it again after each save. The server's
 * `SkillRegistry` (`skills/registry.ts`) is one.
 *
 * @module
 */

export interface SkillOrigins {
  /** Serves the skill folders in `folder` as `origin` (replacing an origin of that name). */
  add(
    origin: string,
    folder: string,
    info: { kind: 'config' | 'plugin' | 'upstream' | 'saved'; label?: string },
  ): Promise<unknown>;
  /** Reads `origin` again: what changed is served, and clients are told. */
  reload(origin: string): Promise<unknown>;
  remove(origin: string): Promise<boolean>;
  has(origin: string): boolean;
}
