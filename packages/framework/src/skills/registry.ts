/**
 * The skills a server serves, as a registry of named origins (see `types.ts`). Each origin is a
 * `SkillSource`; a folder becomes one through the SDK's `SkillCatalog`, which checks every skill
 * (frontmatter, name = folder, size limits, symlinks) and skips a bad one with a warning.
 *
 * Names are decided once per change, in origin order: the first origin to offer a skill name (or
 * `SKILL.md` URI) serves it; a later one's skill of that name is not served, and a warning names
 * both origins. Nothing is lost: it is served as soon as the first origin lets the name go.
 *
 * Changes run one at a time; listeners hear each, and the server turns them into
 * `notifications/resources/list_changed` (the SDK's signal that skills changed).
 *
 * @module
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import type { SkillFiles } from '@modelcontextprotocol/server/ext/skills';
import {
  SKILL_LIMITS,
  SkillCatalog,
  type SkillWarning,
} from '@modelcontextprotocol/server/ext/skills';
import { nodeSkillFiles } from '@modelcontextprotocol/server/ext/skills/node';
import type { Logger } from '../contract/logger.ts';
import { errorMessage, McpboxError } from '../errors.ts';
import { sourceOfExtension } from './capture.ts';
import { combinedSource, type Route, type RouteTable, skillRoot } from './combined.ts';
import type {
  ServedSkill,
  ShadowedSkill,
  Skill,
  SkillOrigin,
  SkillOriginFrom,
  SkillOriginInfo,
  SkillOriginReport,
  SkillSource,
  SkillsChange,
} from './types.ts';

/** Origins are listed outside any request; sources the registry takes do not read it. */
const NO_REQUEST = {} as ServerContext;
/** Pages walked per origin listing, so a source that never ends its cursor cannot hang a change. */
const MAX_PAGES = 1000;

interface OriginState {
  readonly info: SkillOrigin;
  readonly source: SkillSource;
  /** For folder origins: rescanned by `reload`. */
  readonly catalog: SkillCatalog | undefined;
  /** Its entries as last listed. */
  skills: readonly Skill[];
}

export interface SkillRegistryOptions {
  logger: Logger;
  /**
   * Whether the caller of `ctx` may use `plugin`, for origins that belong to one: the server's
   * access decision (`access/pluginUse.ts`). Default: everyone may.
   */
  mayUse?: (plugin: string, ctx: ServerContext) => boolean;
}

export class SkillRegistry implements RouteTable {
  readonly #logger: Logger;
  readonly #mayUse: SkillRegistryOptions['mayUse'];
  readonly #origins = new Map<string, OriginState>();
  readonly #listeners = new Set<(change: SkillsChange) => void>();
  /** Served skills by their root URI (the `SKILL.md` URI without the file name). */
  #routes = new Map<string, Route>();
  #shadowed: ShadowedSkill[] = [];
  /** Collisions already warned about, so a reindex does not repeat them. */
  readonly #warned = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();
  /** Every origin's skills as one source: what the server's skills extension serves. */
  readonly source: SkillSource = combinedSource(this);

  constructor(options: SkillRegistryOptions) {
    this.#logger = options.logger;
    this.#mayUse = options.mayUse;
  }

  /**
   * Adds an origin, or replaces the one of that name in one step (a plugin reload). A folder
   * that cannot be read rejects with an error naming it, and the registry stays as it was.
   */
  add(origin: string, from: SkillOriginFrom, info: SkillOriginInfo): Promise<SkillOriginReport> {
    return this.#serial(async () => {
      const warnings: SkillWarning[] = [];
      this.#collect = (warning) => warnings.push(warning);
      const state = await this.#open(origin, from, info).finally(() => {
        this.#collect = undefined;
      });
      const replaced = this.#origins.has(origin);
      this.#origins.set(origin, state);
      const report = await this.#reindex(origin, warnings);
      this.#emit({ origin, type: replaced ? 'reloaded' : 'added' });
      return report;
    });
  }

  /**
   * Reads an origin again: a folder is rescanned (all or nothing: a failure keeps the old
   * catalog serving), a source listed again. Undefined for an unknown origin.
   */
  reload(origin: string): Promise<SkillOriginReport | undefined> {
    return this.#serial(async () => {
      const state = this.#origins.get(origin);
      if (!state) return undefined;
      const warnings: SkillWarning[] = [];
      this.#collect = (warning) => warnings.push(warning);
      try {
        await state.catalog?.reload();
      } catch (error) {
        this.#logger.warn(`skills: ${origin}: cannot be read again, still serving the last read`, {
          error: errorMessage(error),
        });
      } finally {
        this.#collect = undefined;
      }
      const report = await this.#reindex(origin, warnings);
      this.#emit({ origin, type: 'reloaded' });
      return report;
    });
  }

  /** Removes an origin; its skills stop being served. False when there was none. */
  remove(origin: string): Promise<boolean> {
    return this.#serial(async () => {
      if (!this.#origins.delete(origin)) return false;
      await this.#reindex(undefined, []);
      this.#emit({ origin, type: 'removed' });
      return true;
    });
  }

  has(origin: string): boolean {
    return this.#origins.has(origin);
  }

  /** Whether any origin is registered (the server then declares the skills extension). */
  get empty(): boolean {
    return this.#origins.size === 0;
  }

  /** The origins, in the order they decide names. */
  origins(): SkillOrigin[] {
    return [...this.#origins.values()].map((s) => ({ ...s.info }));
  }

  /** Every served skill with its origin, sorted by URI (for the console and `inspect`). */
  list(): ServedSkill[] {
    return [...this.#routes.values()].map(({ origin, skill }) => ({
      name: skill.frontmatter.name,
      description: skill.frontmatter.description,
      uri: skill.uri,
      origin: origin.origin,
      kind: origin.kind,
      resources: skill.resources,
    }));
  }

  /** Skills not served because an earlier origin serves their name. */
  shadowed(): ShadowedSkill[] {
    return [...this.#shadowed];
  }

  /** Hears every change. Returns a remover. */
  onChange(listener: (change: SkillsChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The route serving `uri` (a skill's file or folder), for the combined source. */
  route(uri: string): Route | undefined {
    for (const [root, route] of this.#routes) {
      if (uri === root || uri.startsWith(`${root}/`)) return route;
    }
    return undefined;
  }

  /** Served routes in URI order. */
  routes(): Route[] {
    return [...this.#routes.values()];
  }

  /** Sources not decided by a route (URIs above skills, unlisted "dynamic" skills), in order. */
  sources(ctx: ServerContext): SkillSource[] {
    return [...this.#origins.values()]
      .filter((s) => this.visible(s.info, ctx))
      .map((s) => s.source);
  }

  visible(origin: SkillOrigin, ctx: ServerContext): boolean {
    return origin.plugin === undefined || (this.#mayUse?.(origin.plugin, ctx) ?? true);
  }

  /** Whether `uri` is inside a skill that is shadowed (never served through another route). */
  isShadowed(uri: string): boolean {
    return this.#shadowed.some((s) => {
      const root = skillRoot(s.uri);
      return uri === root || uri.startsWith(`${root}/`);
    });
  }

  // Where a folder catalog's warnings go while it loads or reloads for one origin.
  #collect: ((warning: SkillWarning) => void) | undefined;

  async #open(origin: string, from: SkillOriginFrom, info: SkillOriginInfo): Promise<OriginState> {
    const { kind, label, plugin } = info;
    const record = { origin, kind, label, ...(plugin !== undefined && { plugin }) };
    if (typeof from !== 'string') {
      return {
        info: { ...record, folder: undefined },
        source: from,
        catalog: undefined,
        skills: [],
      };
    }
    let catalog: SkillCatalog;
    try {
      catalog = await SkillCatalog.load(withoutCaches(nodeSkillFiles(from)), {
        // Warnings of a load or reload go to its report (and the log); later ones (a file that
        // changed since it was read, met when a client reads it) straight to the log.
        onWarning: (warning) => {
          if (this.#collect) this.#collect(warning);
          else this.#logger.warn(`skills: ${origin}: ${warning.path}: ${warning.message}`);
        },
      });
    } catch (error) {
      throw new McpboxError(
        'SKILLS_FOLDER',
        `skills of '${origin}': the folder ${from} cannot be read (${errorMessage(error)}); ` +
          'give a folder of skill folders, each with a SKILL.md',
      );
    }
    return {
      info: { ...record, folder: from },
      source: sourceOfExtension(catalog),
      catalog,
      skills: [],
    };
  }

  /**
   * Lists every origin again and decides who serves each name; logs `origin`'s warnings and any
   * new collision. Returns `origin`'s report.
   */
  async #reindex(origin: string | undefined, warnings: SkillWarning[]): Promise<SkillOriginReport> {
    for (const warning of warnings) {
      this.#logger.warn(`skills: ${origin}: ${warning.path}: ${warning.message}`);
    }
    for (const state of this.#origins.values()) state.skills = await this.#listAll(state);
    const routes = new Map<string, Route>();
    const byName = new Map<string, string>();
    const shadowed: ShadowedSkill[] = [];
    for (const state of this.#origins.values()) {
      for (const skill of state.skills) {
        if (this.#overLimits(state.info.origin, skill)) continue;
        const name = skill.frontmatter.name;
        const root = skillRoot(skill.uri);
        const servedBy = byName.get(name) ?? routes.get(root)?.origin.origin;
        if (servedBy !== undefined) {
          shadowed.push({ name, uri: skill.uri, origin: state.info.origin, servedBy });
          continue;
        }
        byName.set(name, state.info.origin);
        routes.set(root, { origin: state.info, source: state.source, skill });
      }
    }
    this.#routes = new Map([...routes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    this.#shadowed = shadowed;
    this.#warnCollisions(shadowed);
    const served = this.list()
      .filter((s) => s.origin === origin)
      .map((s) => s.name);
    return {
      origin: origin ?? '',
      served,
      shadowed: shadowed.filter((s) => s.origin === origin),
      warnings,
    };
  }

  /**
   * Whether a skill is over the SEP-2640 limits (512 files, 16 MiB), which servers SHOULD NOT
   * serve: the SDK's catalog only warns, so it is left out here (and the reason logged once).
   */
  #overLimits(origin: string, skill: Skill): boolean {
    if (skill.resources === 'dynamic') return false;
    const bytes = skill.resources.reduce((sum, r) => sum + r.size, 0);
    const files = skill.resources.length;
    if (files <= SKILL_LIMITS.files && bytes <= SKILL_LIMITS.bytes) return false;
    const key = `${origin}\0${skill.uri}\0${files}\0${bytes}`;
    if (!this.#warned.has(key)) {
      this.#warned.add(key);
      this.#logger.warn(
        `skills: ${origin}: '${skill.frontmatter.name}' is not served: ${files} files / ${bytes} ` +
          `bytes is over the limit of ${SKILL_LIMITS.files} files / ${SKILL_LIMITS.bytes} bytes ` +
          '(split the skill or shrink its files)',
      );
    }
    return true;
  }

  #warnCollisions(shadowed: ShadowedSkill[]): void {
    for (const s of shadowed) {
      const key = `${s.origin}\0${s.name}\0${s.servedBy}`;
      if (this.#warned.has(key)) continue;
      this.#warned.add(key);
      this.#logger.warn(
        `skills: '${s.name}' of ${s.origin} is not served: ${s.servedBy} serves a skill of that ` +
          `name (the first origin wins; rename one of them to serve both)`,
      );
    }
  }

  /** Every entry an origin lists, walking its pages; a failing source lists nothing (logged). */
  async #listAll(state: OriginState): Promise<readonly Skill[]> {
    const skills: Skill[] = [];
    let cursor: string | undefined;
    try {
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await state.source.list(cursor === undefined ? {} : { cursor }, NO_REQUEST);
        skills.push(...result.skills);
        cursor = result.nextCursor;
        if (cursor === undefined) break;
      }
    } catch (error) {
      this.#logger.warn(`skills: ${state.info.origin}: cannot be listed, serving none of it`, {
        error: errorMessage(error),
      });
      return [];
    }
    return skills;
  }

  #emit(change: SkillsChange): void {
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#logger.warn(`skills: a change listener failed: ${errorMessage(error)}`);
      }
    }
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/**
 * `files` without Python's bytecode caches: a kernel importing a skill's script writes
 * `__pycache__/` beside it, which is no file of the skill (nor in its manifest).
 */
function withoutCaches(files: SkillFiles): SkillFiles {
  return {
    list: async (dir) => (await files.list(dir)).filter((entry) => entry.name !== '__pycache__'),
    read: (path) => files.read(path),
  };
}
