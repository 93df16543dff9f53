/**
 * Every origin's skills behind one `SkillSource`, the one the server's skills extension serves.
 * A request about a skill's file or folder goes to the origin serving that skill; anything else
 * (a folder above the skills, a "dynamic" skill no listing named) to each origin in turn — but
 * never into a skill that is shadowed by another origin's of the same name.
 *
 * @module
 */
import type { Resource, ServerContext } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Skill, SkillOrigin, SkillSource } from './types.ts';

/** Entries per `skills/list` page, as the SDK's catalogs page. */
const PAGE_SIZE = 100;

/** A served skill: its entry, the origin serving it, and that origin's source. */
export interface Route {
  origin: SkillOrigin;
  source: SkillSource;
  skill: Skill;
}

/** What the combined source needs of the registry. */
export interface RouteTable {
  route(uri: string): Route | undefined;
  routes(): Route[];
  sources(): SkillSource[];
  isShadowed(uri: string): boolean;
}

/** The skill's root URI: its `SKILL.md` URI without the file name. */
export function skillRoot(skillMdUri: string): string {
  return skillMdUri.slice(0, skillMdUri.lastIndexOf('/'));
}

/** Asks each origin in turn; the first answer wins. */
async function firstAnswer<T>(
  table: RouteTable,
  uri: string,
  ask: (source: SkillSource) => Promise<T | undefined>,
): Promise<T | undefined> {
  if (table.isShadowed(uri)) return undefined;
  for (const source of table.sources()) {
    const answer = await ask(source).catch(() => undefined);
    if (answer !== undefined) return answer;
  }
  return undefined;
}

function pageOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const page = Number(cursor);
  if (!Number.isSafeInteger(page) || page < 0) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid skills/list cursor: ${cursor}`,
    );
  }
  return page;
}

export function combinedSource(table: RouteTable): SkillSource {
  return {
    async list({ cursor }) {
      const page = pageOf(cursor);
      const all = table.routes().map((r) => r.skill);
      const skills = all.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
      const more = (page + 1) * PAGE_SIZE < all.length;
      return more ? { skills, nextCursor: String(page + 1) } : { skills };
    },
    async get(uri, ctx) {
      const route = table.route(uri);
      if (route) return route.source.get(uri, ctx);
      return firstAnswer(table, uri, (source) => source.get(uri, ctx));
    },
    async read(uri, ctx) {
      const route = table.route(uri);
      if (route) return route.source.read(uri, ctx);
      return firstAnswer(table, uri, (source) => source.read(uri, ctx));
    },
    async readDirectory(uri, params, ctx) {
      const route = table.route(uri);
      if (route) return route.source.readDirectory?.(uri, params, ctx);
      return firstAnswer(table, uri, async (source) => source.readDirectory?.(uri, params, ctx));
    },
    async listResources(ctx: ServerContext) {
      const listed: Resource[] = [];
      const seen = new Set<SkillSource>();
      for (const route of table.routes()) {
        if (seen.has(route.source)) continue;
        seen.add(route.source);
        const resources = (await route.source.listResources?.(ctx).catch(() => [])) ?? [];
        // Only what this origin serves: a shadowed skill's SKILL.md is not listed.
        listed.push(...resources.filter((r) => table.route(r.uri)?.source === route.source));
      }
      return listed;
    },
  };
}
