/**
 * `mcp-proxy api-key new NAME`: makes a key for a service account and prints it once, with the
 * `api_keys` lines to paste into the configuration. Only the key's SHA-256 goes into the
 * configuration; the server never stores or logs the key (`framework/src/auth/apiKeys.ts`).
 *
 * @module
 */
import { API_KEY_NAME, newApiKey } from '@mcpbox/framework';
import { fail } from './exit.ts';

export interface ApiKeyGrant {
  groups?: string[];
  scopes?: string[];
}

/** A YAML flow list of plain words, quoted where YAML would read them otherwise. */
const flowList = (items: readonly string[]) =>
  `[${items.map((item) => (/^[\w.@/-]+$/.test(item) ? item : JSON.stringify(item))).join(', ')}]`;

/** The text `api-key new` prints: the key, then the configuration entry. */
export function describeNewApiKey(
  name: string,
  made: { key: string; sha256: string },
  grant: ApiKeyGrant = {},
): string {
  const entry = [
    'api_keys:',
    `  - name: ${name}`,
    `    sha256: ${made.sha256}`,
    ...(grant.groups?.length ? [`    groups: ${flowList(grant.groups)}`] : []),
    ...(grant.scopes?.length ? [`    scopes: ${flowList(grant.scopes)}`] : []),
  ];
  return [
    `API key for key:${name} (shown once: keep it where the service account reads its secrets):`,
    '',
    `  ${made.key}`,
    '',
    'Add to the server configuration (only the SHA-256 goes there):',
    '',
    ...entry,
    '',
    `Clients send it as: Authorization: Bearer <key>`,
  ].join('\n');
}

/** Makes a key for `name`. Throws (after printing why) on a name a principal cannot have. */
export function newApiKeyCommand(name: string, grant: ApiKeyGrant = {}): string {
  if (!API_KEY_NAME.test(name)) {
    throw fail(
      `"${name}" cannot name an API key: use letters, digits, _ . @ - (starting with a letter or digit, at most 64)`,
    );
  }
  return describeNewApiKey(name, newApiKey(), grant);
}
