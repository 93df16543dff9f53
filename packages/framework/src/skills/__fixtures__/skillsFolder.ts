/** Skill folders written for a test: a temp folder of skill folders, removed at exit. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAtExit } from '@mcpbox/test-utils';

/** A folder of skill folders: `{ name: { file: text } }`. */
export function skillsFolder(skills: Record<string, Record<string, string>>): string {
  const dir = removeAtExit(mkdtempSync(join(tmpdir(), 'mcpbox-skills-')));
  for (const [name, files] of Object.entries(skills)) {
    for (const [file, text] of Object.entries(files)) {
      const path = join(dir, name, file);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, text);
    }
  }
  return dir;
}

export function skillMd(name: string, description: string, body = 'Do it well.'): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}
