/**
 * `SkillWriter`: puts a rendered skill into `<workspace>/skills/<name>/`, whole or not at all.
 *
 * The files are written into a fresh staging folder of the workspace (`.skills-staging/`, not in
 * the served folder, so a half-written skill is never listed) and the folder is renamed into
 * place. Nothing is written outside the workspace: the name was checked (`skillName.ts`), and a
 * skills folder or skill folder that is a symlink is refused rather than followed. A skill of
 * the same name is replaced only when the caller asks (`replace`), never silently.
 *
 * The skills folder is also a Python package (`skillsPackage.py` as its `__init__.py`), so a
 * kernel, whose `PYTHONPATH` holds the workspace, imports a saved skill as `skills.<module>`.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { renderSkill, type SkillDraft } from './skillFolder.ts';
import { checkSkillName } from './skillName.ts';

const PACKAGE_SOURCE = new URL('./skillsPackage.py', import.meta.url);

export interface SavedSkill {
  name: string;
  /** The skill's folder (absolute). */
  folder: string;
  /** The paths written inside it. */
  files: string[];
  /** An older skill of this name was replaced (only with `replace`). */
  replaced: boolean;
}

/** Why a skill was not saved (nothing was written). */
export class SkillSaveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkillSaveError';
  }
}

export class SkillWriter {
  /** `<workspace>/skills`: the folder of saved skills (served, importable). */
  readonly dir: string;
  readonly #staging: string;
  /** Runs after each save, before it resolves: the host serves the new skill (`servedSkills.ts`). */
  afterSave: (() => Promise<unknown>) | undefined;
  /** Saves run one at a time: two of one name must not both find the name free. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(workspace: string) {
    this.dir = join(workspace, 'skills');
    this.#staging = join(workspace, '.skills-staging');
  }

  /** Checks the name, renders the files and moves the folder into place. */
  save(draft: SkillDraft, options: { replace?: boolean } = {}): Promise<SavedSkill> {
    const run = this.#queue.then(() => this.#save(draft, options.replace === true));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Refuses before asking anyone: a bad name, or a name taken without `replace`. */
  async precheck(name: string, replace = false): Promise<void> {
    checkSkillName(name);
    await this.#realFolder(this.dir, 'the skills folder');
    const taken = await this.#realFolder(join(this.dir, name), `skill folder ${name}`);
    if (taken && !replace) {
      throw new SkillSaveError(
        `a skill named '${name}' already exists in ${this.dir}; nothing was written. Choose ` +
          'another name, or pass replace: true to replace it (its old files are removed)',
      );
    }
  }

  async #save(draft: SkillDraft, replace: boolean): Promise<SavedSkill> {
    await this.precheck(draft.name, replace);
    const files = await renderSkill(draft);
    await this.#realFolder(this.#staging, 'the staging folder');
    await mkdir(this.#staging, { recursive: true });
    await mkdir(this.dir, { recursive: true });
    await this.#ensurePackage();
    const stage = await mkdtemp(join(this.#staging, `${draft.name}-`));
    const folder = join(this.dir, draft.name);
    try {
      const fresh = join(stage, draft.name);
      await mkdir(fresh);
      for (const [path, text] of Object.entries(files)) {
        await writeFile(join(fresh, path), text, { flag: 'wx' });
      }
      const replaced = replace && (await this.#realFolder(folder, `skill folder ${draft.name}`));
      // The old folder moves out first; a rename onto a folder that appeared since fails
      // (ENOTEMPTY) rather than mixing two skills.
      if (replaced) await rename(folder, join(stage, 'replaced'));
      await rename(fresh, folder);
      await this.afterSave?.();
      return { name: draft.name, folder, files: Object.keys(files), replaced };
    } finally {
      await rm(stage, { recursive: true, force: true });
    }
  }

  /** True when `path` is a real folder, false when missing; refuses a symlink or a file. */
  async #realFolder(path: string, what: string): Promise<boolean> {
    const stats = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (stats === undefined) return false;
    if (stats.isSymbolicLink() || !stats.isDirectory()) {
      throw new SkillSaveError(
        `${what} (${path}) is ${stats.isSymbolicLink() ? 'a symlink' : 'not a folder'}; skills ` +
          'are only written into a real folder of the workspace, so nothing was written',
      );
    }
    return true;
  }

  /** `skills/__init__.py`: written when missing or different, by rename (never half a file). */
  async #ensurePackage(): Promise<void> {
    const target = join(this.dir, '__init__.py');
    const source = await readFile(PACKAGE_SOURCE, 'utf8');
    const current = await readFile(target, 'utf8').catch(() => undefined);
    if (current === source) return;
    const temp = join(this.#staging, `__init__.${randomBytes(4).toString('hex')}.py`);
    await writeFile(temp, source, { flag: 'wx' });
    await rename(temp, target);
  }
}
