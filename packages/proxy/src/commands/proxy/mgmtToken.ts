/**
 * Where the management token comes from on the command line, for `serve` and the client
 * commands alike: `--mgmt-token TOKEN` (visible to every user in `ps`), `--mgmt-token-file PATH`
 * (the file's content, surrounding whitespace dropped), or neither — then the caller falls back
 * to `MCP_MGMT_TOKEN` (and `serve` to `management_token` in its config).
 *
 * A token given explicitly but empty fails: `--mgmt-token "$MCP_MGMT_TOKEN"` with the variable
 * unset used to start the API without authentication. Messages never contain the token.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail } from '../exit.ts';

export interface MgmtTokenFlags {
  /** `--mgmt-token` (or its alias `--token`). */
  mgmtToken?: string;
  /** `--mgmt-token-file`. */
  mgmtTokenFile?: string;
}

/** The token the flags give, `undefined` when they give none; throws (after printing) on misuse. */
export function mgmtTokenFromFlags(flags: MgmtTokenFlags, cwd = process.cwd()): string | undefined {
  const { mgmtToken, mgmtTokenFile } = flags;
  if (mgmtToken !== undefined && mgmtTokenFile !== undefined) {
    throw fail('give the management token once: --mgmt-token or --mgmt-token-file, not both');
  }
  if (mgmtToken !== undefined) {
    if (mgmtToken.trim() === '') {
      throw fail(
        '--mgmt-token is empty (an unset variable in --mgmt-token "$MCP_MGMT_TOKEN"?); ' +
          'give a token, or leave the flag out to run without one',
      );
    }
    return mgmtToken;
  }
  if (mgmtTokenFile === undefined) return undefined;
  const path = resolve(cwd, mgmtTokenFile);
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw fail(`cannot read --mgmt-token-file ${path} (${code})`);
  }
  const token = content.trim();
  if (token === '') throw fail(`--mgmt-token-file ${path} is empty`);
  return token;
}
