/**
 * What `save_skill` writes for one skill — pure text, no disk: `SKILL.md` (frontmatter name and
 * description; a body saying when and how to use it, with the author's notes), the code as a
 * Python script, an `__init__.py` so a kernel imports it as `skills.<module>`, and
 * `manifest.json` with the SHA-256 digest of every other file.
 *
 * The folder is checked with the SDK's own entry builder (`skillEntry`) before it is written, so
 * what is saved is a skill every SEP-2640 client accepts.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { skillModuleName } from './skillName.ts';

export interface SkillDraft {
  /** Already checked (`checkSkillName`). */
  name: string;
  description: string;
  /** The Python code, as it ran. */
  code: string;
  /** When and how to use it, in the author's words (Markdown). */
  notes?: string;
}

/** The manifest's name in a skill folder. */
export const MANIFEST_FILE = 'manifest.json';

/** `mcptools.<server>[.<tool>]` modules the code imports or names, sorted, without repeats. */
export function mcptoolsModulesOf(code: string): string[] {
  const found = new Set<string>();
  for (const match of code.matchAll(/\bmcptools((?:\.[A-Za-z_]\w*){1,2})/g)) {
    found.add(`mcptools${match[1]}`);
  }
  // `from mcptools.<server> import <tool>, <tool>`: the tools are modules too.
  for (const match of code.matchAll(/^\s*from\s+mcptools\.(\w+)\s+import\s+([^\n#]+)/gm)) {
    for (const tool of (match[2] ?? '').replace(/[()]/g, '').split(',')) {
      const bare = tool.trim().split(/\s+as\s+/)[0];
      if (bare && /^[A-Za-z_]\w*$/.test(bare)) found.add(`mcptools.${match[1]}.${bare}`);
    }
  }
  return [...found].sort();
}

function skillMarkdown(draft: SkillDraft, script: string, tools: string[]): string {
  const module = skillModuleName(draft.name);
  const uses =
    tools.length === 0
      ? 'It calls no MCP tools through `mcptools`.'
      : `It calls MCP tools through these generated modules (the servers must be registered, or ` +
        `the tools be in code mode's catalog): ${tools.map((t) => `\`${t}\``).join(', ')}.`;
  const notes = draft.notes?.trim() ? `\n## Notes\n\n${draft.notes.trim()}\n` : '';
  return `---
name: ${draft.name}
description: ${JSON.stringify(draft.description)}
---
# ${draft.name}

${draft.description}

## When to use it

When a task matches the description above: this code already worked in an ipybox kernel, so
reuse it instead of writing it again.
${notes}
## How to use it

In an ipybox kernel (\`execute_ipython_cell\` or code mode's \`execute_code\`):

\`\`\`python
from skills.${module} import *   # runs ${script} once, then its names are yours
\`\`\`

Any other client reads \`${script}\` and runs or adapts it. ${uses}

## Files

- \`${script}\`: the code, as it ran
- \`__init__.py\`: makes the folder the Python package \`skills.${module}\`
- \`${MANIFEST_FILE}\`: the SHA-256 digest of each file
`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The files of the skill, by path inside its folder; validated as a SEP-2640 skill. */
export async function renderSkill(
  draft: SkillDraft,
  savedAt: Date = new Date(),
): Promise<Record<string, string>> {
  const module = skillModuleName(draft.name);
  const script = `${module}.py`;
  const tools = mcptoolsModulesOf(draft.code);
  const code = draft.code.endsWith('\n') ? draft.code : `${draft.code}\n`;
  const files: Record<string, string> = {
    'SKILL.md': skillMarkdown(draft, script, tools),
    [script]: `# Skill ${draft.name}, saved from an ipybox kernel by save_skill.\n${code}`,
    '__init__.py': `"""Skill ${draft.name}: the code is in ${script}."""\nfrom .${module} import *  # noqa: F401,F403\n`,
  };
  const manifest = {
    name: draft.name,
    description: draft.description,
    saved_at: savedAt.toISOString(),
    mcptools: tools,
    files: Object.entries(files).map(([path, text]) => ({
      path,
      sha256: sha256(text),
      size: Buffer.byteLength(text),
    })),
  };
  files[MANIFEST_FILE] = `${JSON.stringify(manifest, null, 2)}\n`;
  // Throws, naming the problem, for what a client would refuse (a description over 1024, ...).
  await skillEntry(draft.name, files);
  return files;
}
