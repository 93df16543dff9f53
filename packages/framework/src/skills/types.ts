/**
 * The served set of skills (SEP-2640, `io.modelcontextprotocol/skills`) as named origins: a
 * config `skills_dir`, a plugin's `skills/` folder or registered source, an upstream server the
 * proxy mirrors, a folder of skills saved from code. Each origin adds its skills; the server
 * serves their union through the SDK's `SkillsExtension`.
 *
 * @module
 */
import type { Skill, SkillSource, SkillWarning } from '@modelcontextprotocol/server/ext/skills';

export type { Skill, SkillSource, SkillWarning };

/** Where an origin's skills come from, for logs and the console's Skills page. */
export type SkillOriginKind = 'config' | 'plugin' | 'upstream' | 'saved';

export interface SkillOriginInfo {
  kind: SkillOriginKind;
  /** Who offers it, in words: the plugin's or upstream server's name, the folder. */
  label?: string;
}

/**
 * What an origin serves: a folder of skill folders (each with a `SKILL.md`), read and checked by
 * the SDK's catalog (frontmatter, name = folder, limits, no symlinks), or a source of your own
 * (an upstream's skills with names and URIs rewritten, say). A source's `list()` is called
 * outside any request — when the origin is added or reloaded — so it must not need the
 * request context; its entries are served as listed then, until the next `reload(origin)`.
 */
export type SkillOriginFrom = string | SkillSource;

/** One origin as registered. */
export interface SkillOrigin extends SkillOriginInfo {
  origin: string;
  /** The folder, for folder origins. */
  folder: string | undefined;
}

/** A skill as served, with the origin that serves it. */
export interface ServedSkill {
  name: string;
  description: string;
  /** The URI of its `SKILL.md`. */
  uri: string;
  origin: string;
  kind: SkillOriginKind;
  /** Every file (URI, digest, size), or `"dynamic"`. */
  resources: Skill['resources'];
}

/** A skill an origin offers that is not served because an earlier origin serves its name. */
export interface ShadowedSkill {
  name: string;
  uri: string;
  origin: string;
  /** The origin that serves the name. */
  servedBy: string;
}

/** What adding or reloading an origin did. */
export interface SkillOriginReport {
  origin: string;
  /** Names of the skills this origin now serves. */
  served: string[];
  /** Its skills hidden behind another origin's of the same name. */
  shadowed: ShadowedSkill[];
  /** Problems found in its files (skipped skills and why); each was also logged. */
  warnings: SkillWarning[];
}

/** A change of the served set: which origin, and whether what clients list changed. */
export interface SkillsChange {
  origin: string;
  type: 'added' | 'reloaded' | 'removed';
}
