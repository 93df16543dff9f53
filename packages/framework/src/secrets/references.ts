/**
 * `${secret:NAME}` references in a string (a mirrored server's header value), resolved for one
 * caller: `{principal}` and `{subject}` inside NAME become the caller's names, each secret is
 * read from the backend, `${VAR}` placeholders around them from the environment — in one pass,
 * so a secret's own text is never expanded again.
 *
 * - `{principal}`: the principal's id (`sub:alice`, `user:alice`, `client:ci`, `key:deploy`,
 *   `local:alice`); distinct principals never share a name.
 * - `{subject}`: the OAuth token's subject (`sub`, else `username`) alone, `alice` — shorter,
 *   for OAuth users only.
 *
 * Both are written with every character outside `[A-Za-z0-9_.@:-]` as `%XX` (UTF-8), so a
 * subject cannot reach another name with `/` or `=`, and the encoding stays one-to-one. An
 * anonymous caller has no name: a per-principal reference refuses it.
 *
 * @module
 */
import { interpolateString } from '../config/interpolate.ts';
import type { Principal } from '../contract/principal.ts';
import { type SecretBackend, SecretUnavailableError } from './backends.ts';

/** Every `${secret:NAME}` in a text, NAME as written. */
const SECRET_REF = /\$\{secret:((?:[^{}]|\{[^{}]*\})*)\}/g;
const PER_PRINCIPAL = /\{(principal|subject)\}/;

/** The NAMEs of the secret references in `text`, as written. */
export function secretReferences(text: string): string[] {
  return [...text.matchAll(SECRET_REF)].map((match) => match[1]);
}

/** True when `text` holds a secret reference that names the caller. */
export function namesPrincipal(text: string): boolean {
  return secretReferences(text).some((name) => PER_PRINCIPAL.test(name));
}

/** A value the caller cannot be given: the message says what to set up, never a secret. */
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}

const encode = (name: string) =>
  [...name].map((c) => (/[A-Za-z0-9_.@:-]/.test(c) ? c : encodeURIComponent(c))).join('');

/** `{principal}` and `{subject}` in a secret's NAME, for this caller. */
export function secretNameFor(name: string, principal: Principal): string {
  return name.replace(/\{(principal|subject)\}/g, (_match, which: string) => {
    if (principal.kind === 'anonymous') {
      throw new CredentialError(
        `secret "${name}" names the caller, and this caller is anonymous: sign in (OAuth) to use it`,
      );
    }
    if (which === 'principal') return encode(principal.id);
    if (principal.kind !== 'oauth' || principal.subject === undefined) {
      throw new CredentialError(
        `secret "${name}" names the token's {subject}, and ${principal.id} has none (use {principal})`,
      );
    }
    return encode(principal.subject);
  });
}

/** What a reference is resolved with. */
export interface ReferenceSource {
  env: Readonly<Record<string, string | undefined>>;
  backend: SecretBackend;
  /** Names the backend in messages: `the file backend (~/.mcp_secrets)`. */
  backendName: string;
  /** The caller; needed only when a reference names it. */
  principal?: Principal;
}

/**
 * `text` with its secret references and `${VAR}` placeholders resolved.
 *
 * @param where names the value in messages (`upstream 'github': headers.Authorization`).
 * @throws {CredentialError} naming the secret that is missing and where to add it.
 */
export async function resolveReferences(
  text: string,
  where: string,
  source: ReferenceSource,
): Promise<string> {
  const values = new Map<string, string>();
  for (const written of secretReferences(text)) {
    const name = PER_PRINCIPAL.test(written)
      ? secretNameFor(written, requirePrincipal(source, where))
      : written;
    try {
      values.set(written, await source.backend.secret(name));
    } catch (error) {
      const why = error instanceof SecretUnavailableError ? ` (${error.message})` : '';
      throw new CredentialError(
        `${where}: no secret "${name}" in ${source.backendName}: add it there to use these tools${why}`,
      );
    }
  }
  const { value, problems } = interpolateString(
    text,
    source.env,
    (written) => values.get(written) ?? '',
  );
  if (problems.length > 0) throw new CredentialError(`${where}: ${problems.join('; ')}`);
  return value;
}

function requirePrincipal(source: ReferenceSource, where: string): Principal {
  if (source.principal) return source.principal;
  throw new CredentialError(`${where}: names the caller, and there is no caller here`);
}
