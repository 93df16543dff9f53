/**
 * `${VAR}` and `${VAR:-default}` in configuration strings, at any depth (keys are left alone).
 *
 * - `${VAR}` is the variable's value; an unset variable is an error, because silently turning
 *   `management_token: ${MCP_MGMT_TOKEN}` into an empty string would switch authentication off.
 * - `${VAR:-default}` falls back to `default` when VAR is unset or empty (as in the shell);
 *   `${VAR:-}` makes an unset variable an empty value on purpose.
 * - `$${` is a literal `${`.
 * - `${secret:NAME}` reads the secret backend, per call, and only where its reader allows it (a
 *   mirrored server's `headers`: `secrets/references.ts`); NAME may hold `{principal}`. Elsewhere
 *   it is an error, so a secret reference never goes out as literal text.
 *
 * @module
 */

export type ConfigPath = ReadonlyArray<string | number>;

export interface InterpolationIssue {
  path: ConfigPath;
  message: string;
}

/** `$${`, `${secret:NAME}` (NAME may hold `{…}` once deep), `${BODY}`, or an unclosed `${`. */
const PLACEHOLDER = /\$\$\{|\$\{secret:((?:[^{}]|\{[^{}]*\})*)\}|\$\{([^}]*)\}|\$\{/g;

/**
 * What to do with `${secret:NAME}`: by default it is a problem; `keep` leaves it as written (for
 * the reader that resolves it later); a function gives its value.
 */
export type SecretPlaceholders = 'keep' | ((name: string) => string);

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Expands one string; issues name the placeholder that could not be expanded. */
export function interpolateString(
  text: string,
  env: Readonly<Record<string, string | undefined>>,
  secrets?: SecretPlaceholders,
): { value: string; problems: string[] } {
  const problems: string[] = [];
  const value = text.replace(PLACEHOLDER, (match, secret?: string, body?: string) => {
    if (match === '$${') return '${';
    if (secret !== undefined) {
      if (secrets === 'keep') return match;
      if (secrets) return secrets(secret);
      problems.push(
        `"${match}" is a secret reference, read only in a mirrored server's headers (plugins.NAME.headers) and an OpenAPI plugin's credentials (plugins.NAME.openapi.auth)`,
      );
      return match;
    }
    if (body === undefined) {
      problems.push(`unclosed "\${" in ${JSON.stringify(text)}`);
      return match;
    }
    const split = body.indexOf(':-');
    const name = split === -1 ? body : body.slice(0, split);
    if (!NAME.test(name)) {
      problems.push(
        `"${match}" is not a valid placeholder (expected \${NAME} or \${NAME:-default})`,
      );
      return match;
    }
    const current = env[name];
    if (split !== -1) return current ? current : body.slice(split + 2);
    if (current === undefined) {
      problems.push(
        `environment variable ${name} is not set (write \${${name}:-default} for a fallback)`,
      );
      return match;
    }
    return current;
  });
  return { value, problems };
}

/**
 * Returns a copy of `tree` with every string value expanded, and every problem with its path.
 * Subtrees for which `keep(path, node)` is true are copied with their placeholders intact.
 */
export function interpolateTree(
  tree: unknown,
  env: Readonly<Record<string, string | undefined>>,
  keep: (path: ConfigPath, node: unknown) => boolean = () => false,
  secrets?: SecretPlaceholders,
): { value: unknown; issues: InterpolationIssue[] } {
  const issues: InterpolationIssue[] = [];
  const walk = (node: unknown, path: ConfigPath): unknown => {
    if (keep(path, node)) return node;
    if (typeof node === 'string') {
      const { value, problems } = interpolateString(node, env, secrets);
      for (const message of problems) issues.push({ path, message });
      return value;
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]),
      );
    }
    return node;
  };
  return { value: walk(tree, []), issues };
}
