/**
 * The server's skills (SEP-2640) as `mcp-client skills` and `inspect` show them, through the
 * SDK's `SkillsClient`, which checks every file it reads against the skill's entry (size,
 * SHA-256 digest, and for `SKILL.md` the frontmatter).
 *
 * @module
 */
import type { Client } from '@modelcontextprotocol/client';
import { type Skill, SkillsClient } from '@modelcontextprotocol/client/ext/skills';

/** A skill as listed: what `inspect` and `skills` print. */
export interface ListedSkill {
  name: string;
  description: string;
  uri: string;
  /** Its files, as paths under the skill's folder; `"dynamic"` when the server does not list them. */
  files: string[] | 'dynamic';
}

function rootOf(skill: Skill): string {
  return skill.uri.slice(0, skill.uri.lastIndexOf('/') + 1);
}

export function listedSkill(skill: Skill): ListedSkill {
  const root = rootOf(skill);
  return {
    name: skill.frontmatter.name,
    description: skill.frontmatter.description,
    uri: skill.uri,
    files:
      skill.resources === 'dynamic'
        ? 'dynamic'
        : skill.resources.map((r) => (r.uri.startsWith(root) ? r.uri.slice(root.length) : r.uri)),
  };
}

/** The server's skills; none when it does not declare the extension. */
export async function listSkills(client: Client): Promise<{ skills: Skill[]; supported: boolean }> {
  const skills = new SkillsClient(client);
  if (!skills.supported) return { skills: [], supported: false };
  return { skills: (await skills.list()).skills, supported: true };
}

/**
 * The skill and file `ref` names: `NAME[/PATH]` (the file defaults to `SKILL.md`), or a
 * `skill://` URI of a skill's file.
 */
export function pickSkill(
  skills: Skill[],
  ref: string,
): { skill: Skill; path?: string } | undefined {
  if (ref.includes('://')) {
    const skill = skills.find((s) => ref.startsWith(rootOf(s)));
    return skill && { skill, path: ref };
  }
  const [name, ...rest] = ref.split('/');
  const skill = skills.find((s) => s.frontmatter.name === name);
  return skill && { skill, path: rest.length > 0 ? rest.join('/') : undefined };
}
