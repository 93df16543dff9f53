/**
 * An upstream's Skills (SEP-2640) under the mirror's name for them: an SDK `SkillSource` over the
 * skills an upstream listed, serving each under the mirror's prefix and forwarding every read to
 * the upstream under the upstream's own URI.
 *
 * With a prefix, `review` of the upstream mirrored as `github` is served as `github-review` at
 * `skill://github-review/SKILL.md` (skill names allow only lowercase letters, digits and single
 * hyphens, and must equal their folder's name, so the prefix is joined with a hyphen, not the
 * tools' underscore). The name lives in the `SKILL.md` frontmatter too: that file is served with
 * its `name:` line rewritten, and its digest and size in the entry are those of the rewritten
 * bytes, so a client's verification holds. Every other file passes through byte for byte under
 * its upstream digest. Without a prefix, entries and URIs pass through unchanged.
 *
 * Only what the upstream listed is forwarded: a URI under no mirrored skill, or (for a skill with
 * a file list) a file the entry does not list, is not served — a guessed URI never reaches the
 * upstream.
 *
 * @module
 */
import type { ReadResourceResult } from '@modelcontextprotocol/server';
import type { Skill, SkillReadResult, SkillSource } from '@modelcontextprotocol/server/ext/skills';
import type { Logger } from '../contract/logger.ts';
import { errorMessage } from '../errors.ts';
import { nodeCrypto } from '../lazy.ts';

/** Reads one resource of the upstream for the caller of `ctx`. */
export type ReadUpstream = (uri: string, ctx: unknown) => Promise<ReadResourceResult>;

/** One mirrored skill: the entry served, and where its files are upstream. */
interface Mirrored {
  readonly entry: Skill;
  /** Our root (no trailing slash) and the upstream's. */
  readonly root: string;
  readonly upstreamRoot: string;
  /** The served name, when it differs from the upstream's (the `SKILL.md` is rewritten). */
  readonly renamed: string | undefined;
}

const SKILL_MD = '/SKILL.md';

/**
 * The prefix as a skill name's first part: `GitHub_Tools` → `github-tools`; undefined when
 * nothing of it is left (or there is no prefix).
 */
export function skillPrefix(prefix: string | false | undefined): string | undefined {
  if (!prefix) return undefined;
  const slug = prefix
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || undefined;
}

/** `SKILL.md` with its frontmatter's `name:` line saying `name`; undefined without one. */
export function renameSkillMd(text: string, name: string): string | undefined {
  const frontmatter = /^(\uFEFF?---\r?\n)([\s\S]*?)(\r?\n---(?:\r?\n|$))/.exec(text);
  if (!frontmatter) return undefined;
  const [whole, open, body, close] = frontmatter as unknown as [string, string, string, string];
  const line = /^name:[^\r\n]*$/m;
  if (!line.test(body)) return undefined;
  return `${open}${body.replace(line, `name: ${name}`)}${close}${text.slice(whole.length)}`;
}

function digestOf(bytes: Uint8Array): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(bytes).digest('hex')}`;
}

/** A `resources/read` result's first content as the SDK's skill read result. */
function readResultOf(result: ReadResourceResult): SkillReadResult | undefined {
  const content = result.contents[0];
  if (content === undefined) return undefined;
  const mime = content.mimeType === undefined ? {} : { mimeType: content.mimeType };
  if ('text' in content && typeof content.text === 'string') return { text: content.text, ...mime };
  if ('blob' in content && typeof content.blob === 'string')
    return { bytes: new Uint8Array(Buffer.from(content.blob, 'base64')), ...mime };
  return undefined;
}

function textOf(result: SkillReadResult): string {
  return 'text' in result ? result.text : Buffer.from(result.bytes).toString('utf8');
}

export interface UpstreamSkillsOptions {
  /** Names the upstream in warnings. */
  name: string;
  /** The mirror's prefix (`prefix:` / `auto_prefix`); none passes entries through. */
  prefix?: string | false;
  read: ReadUpstream;
  logger?: Logger;
}

/** The skills of one upstream, as last listed, served under the mirror's names. */
export class UpstreamSkills implements SkillSource {
  readonly #skills: readonly Mirrored[];
  readonly #byUri: ReadonlyMap<string, Mirrored>;
  readonly #read: ReadUpstream;

  private constructor(skills: Mirrored[], read: ReadUpstream) {
    this.#skills = skills;
    this.#byUri = new Map(skills.map((skill) => [skill.entry.uri, skill]));
    this.#read = read;
  }

  /**
   * Maps what the upstream listed. A skill that cannot be served under the mirror's name — its
   * `SKILL.md` unreadable or without a `name:` line, a prefixed name over 64 characters, a second
   * skill of the same name — is left out with a warning; the others are served.
   */
  static async build(listed: readonly Skill[], options: UpstreamSkillsOptions) {
    const prefix = skillPrefix(options.prefix);
    const skills: Mirrored[] = [];
    const taken = new Set<string>();
    for (const skill of listed) {
      try {
        const mirrored = await mirrorSkill(skill, prefix, options.read);
        if (taken.has(mirrored.entry.uri)) throw new Error(`another skill is already served there`);
        taken.add(mirrored.entry.uri);
        skills.push(mirrored);
      } catch (error) {
        options.logger?.warn(
          `upstream '${options.name}': skill ${skill.uri} is not mirrored: ${errorMessage(error)}`,
        );
      }
    }
    return new UpstreamSkills(skills, options.read);
  }

  /** The served entries, in the upstream's order. */
  get entries(): Skill[] {
    return this.#skills.map((skill) => skill.entry);
  }

  async list(): Promise<{ skills: Skill[] }> {
    return { skills: this.entries };
  }

  async get(uri: string): Promise<Skill | undefined> {
    return this.#byUri.get(uri)?.entry;
  }

  async read(uri: string, ctx: unknown): Promise<SkillReadResult | undefined> {
    const skill = this.#skills.find((s) => uri.startsWith(`${s.root}/`));
    if (skill === undefined) return undefined;
    const { entry, root, upstreamRoot, renamed } = skill;
    if (entry.resources !== 'dynamic' && !entry.resources.some((file) => file.uri === uri)) {
      return undefined;
    }
    const result = readResultOf(await this.#read(upstreamRoot + uri.slice(root.length), ctx));
    if (result === undefined || renamed === undefined || uri !== entry.uri) return result;
    const text = renameSkillMd(textOf(result), renamed);
    return text === undefined ? undefined : { text, mimeType: result.mimeType ?? 'text/markdown' };
  }
}

/** One upstream skill under the prefixed name (or as it is, without a prefix). */
async function mirrorSkill(
  skill: Skill,
  prefix: string | undefined,
  read: ReadUpstream,
): Promise<Mirrored> {
  if (!skill.uri.endsWith(SKILL_MD)) throw new Error('its URI does not end in /SKILL.md');
  const upstreamRoot = skill.uri.slice(0, -SKILL_MD.length);
  const name = skill.frontmatter.name;
  if (prefix === undefined) {
    return { entry: skill, root: upstreamRoot, upstreamRoot, renamed: undefined };
  }
  const renamed = `${prefix}-${name}`;
  if (renamed.length > 64) throw new Error(`'${renamed}' is longer than 64 characters`);
  const root = `skill://${renamed}`;
  const moved = (uri: string) => {
    if (!uri.startsWith(`${upstreamRoot}/`)) throw new Error(`file ${uri} is outside the skill`);
    return root + uri.slice(upstreamRoot.length);
  };
  let resources: Skill['resources'] = 'dynamic';
  if (skill.resources !== 'dynamic') {
    // The rewritten SKILL.md is what clients get: the entry carries its digest and size.
    const original = readResultOf(await read(skill.uri, undefined));
    const text = original && renameSkillMd(textOf(original), renamed);
    if (text === undefined) throw new Error('its SKILL.md has no frontmatter name to rewrite');
    const bytes = new TextEncoder().encode(text);
    resources = skill.resources.map((file) =>
      file.uri === skill.uri
        ? { ...file, uri: moved(file.uri), digest: digestOf(bytes), size: bytes.length }
        : { ...file, uri: moved(file.uri) },
    );
  }
  const entry: Skill = {
    ...skill,
    uri: moved(skill.uri),
    frontmatter: { ...skill.frontmatter, name: renamed },
    resources,
  };
  return { entry, root, upstreamRoot, renamed };
}
