/**
 * The name of a skill saved from code: SEP-2640's rule (Agent Skills: 1-64 lowercase letters,
 * digits and single hyphens, the name of its folder), checked before anything touches the disk,
 * with an error that says what to send instead. The name becomes a folder under the workspace's
 * skills folder, so the rule is also what keeps a write inside it: no separator, no `..`.
 *
 * @module
 */

/** SEP-2640's name rule, as the SDK's catalog checks it (`SKILL_NAME_PATTERN`). */
const SKILL_NAME = /^[\da-z]+(?:-[\da-z]+)*$/;
const MAX_NAME = 64;

export class SkillNameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkillNameError';
  }
}

/** Returns `name` when it is a valid skill name; throws {@link SkillNameError} saying why not. */
export function checkSkillName(name: string): string {
  const shown = JSON.stringify(name);
  if (/[/\\]/.test(name) || name.split(/[/\\]/).includes('..') || name.includes('..')) {
    throw new SkillNameError(
      `skill name ${shown} is a path: a skill name is one folder name (lowercase letters, ` +
        "digits and single hyphens, e.g. 'csv-report'); skills are always saved in the " +
        "workspace's skills/ folder",
    );
  }
  if (name.length === 0 || name.length > MAX_NAME || !SKILL_NAME.test(name)) {
    throw new SkillNameError(
      `skill name ${shown} is not valid: use 1-${MAX_NAME} lowercase letters, digits and single ` +
        "hyphens, not starting or ending with a hyphen (e.g. 'csv-report')",
    );
  }
  return name;
}

/** The Python module of skill `name`: `skills.<module>` in a kernel (a hyphen is an underscore). */
export function skillModuleName(name: string): string {
  return name.replaceAll('-', '_');
}
