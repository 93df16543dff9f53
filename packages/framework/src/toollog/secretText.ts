/**
 * Finds secrets inside free text — a tool result, an error message, a string argument — by how
 * they look: credentials in URLs (`postgres://user:***@host`), `Bearer …` / `Basic …`, private
 * key blocks, well-known token formats, `name: value` / `name=value` / `"name": "value"` pairs
 * whose name is a secret's (see `pairs.ts` for the rest of what pairs reveal), and (unless
 * turned off) long random-looking strings.
 *
 * One pass over the text with one precompiled regular expression, plus one pass for the known
 * secret values and one per configured extra pattern.
 *
 * @module
 */
import { PairReader } from './pairs.ts';
import type { SecretNames } from './secretKeys.ts';

export const REDACTED = '[REDACTED]';
/** What replaces the password of a URL, as in `postgres://user:***@host`. */
export const URL_PASSWORD_MASK = '***';

/** `scheme://user:PASSWORD@host`: everything between the first `:` after `//` and the last `@`. */
const URL_CREDENTIALS = String.raw`(?<url>\b[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s/?#@:'"<>]{0,256}:)[^\s/?#'"<>]{1,256}(?=@)`;
/** An HTTP authorization value: the scheme stays, the credentials go. */
const AUTH_SCHEME = String.raw`(?<scheme>\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC)\s+)[A-Za-z0-9._~+/=-]+`;
/** A PEM private key, also when cut before its END line. */
const PRIVATE_KEY = String.raw`-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)`;
/** Token formats whose prefix says what they are. */
const KNOWN_TOKENS = [
  `gh[pousr]_[A-Za-z0-9]{20,}`, // GitHub
  `github_pat_[A-Za-z0-9_]{20,}`, // GitHub fine-grained
  `xox[abposr]-[A-Za-z0-9-]{10,}`, // Slack
  String.raw`(?:AKIA|ASIA)[A-Z0-9]{16}\b`, // AWS access key id
  `sk-[A-Za-z0-9_-]{20,}`, // OpenAI, Anthropic (sk-ant-…), sk-proj-…
  `[rs]k_(?:live|test)_[A-Za-z0-9]{16,}`, // Stripe
  `AIza[0-9A-Za-z_-]{35}`, // Google API key
  `glpat-[A-Za-z0-9_-]{20,}`, // GitLab
  `npm_[A-Za-z0-9]{36}`, // npm
  String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`, // JWT
  `ipk_[0-9a-f]{12}_[A-Za-z0-9_-]{24}`, // ipybox kernel handle: whoever holds it reaches the kernel
];
const KNOWN_TOKEN = String.raw`\b(?:${KNOWN_TOKENS.join('|')})`;
/**
 * The separator of a `name: value` / `name=value` / `"name": "value"` pair. The name is read
 * backwards from it and the value measured forwards by hand, so a pair whose name is harmless
 * consumes nothing but its separator. In a sentence, `is` / `was` separates too ("my password
 * is …").
 */
const SEPARATOR = `(?<sep>[:=])|(?<verb>(?<=[ \t])(?:is|was|IS|WAS)(?=:?[ \t]))`;
/** A candidate for the randomness check: a long run of base64 / base64url characters. */
const BLOB = `(?<blob>[A-Za-z0-9+/_-]{24,}={0,2})`;

const withoutBlob = [URL_CREDENTIALS, AUTH_SCHEME, PRIVATE_KEY, KNOWN_TOKEN, SEPARATOR].join('|');
/**
 * Compiled once for the process; `lastIndex` is always set before use. A blob is tried first at
 * each position; when it turns out to be words (`MY_DATABASE_PASSWORD_FOR_APP=…`), the same
 * position is scanned again without blobs, so the pair or token there is still found.
 */
const SCAN_WITH_BLOBS = new RegExp(`${BLOB}|${withoutBlob}`, 'g');
const SCAN = new RegExp(withoutBlob, 'g');

const HEX_OR_UUID = /^[0-9a-fA-F-]+$/;

/**
 * Whether a candidate looks random rather than like words. Random base62/64 switches between
 * lower case, upper case and digits at almost every other character; identifiers, paths and
 * slugs (`getUserById2`, `/Users/Ann/app2/src`, `node-v20-linux-x64`) rarely do. Hex and UUIDs
 * (commit ids, digests, request ids) are left readable.
 */
export function looksRandom(candidate: string): boolean {
  if (HEX_OR_UUID.test(candidate)) return false;
  let kind = '';
  let switches = 0;
  let alnum = 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < candidate.length; i++) {
    const c = candidate.charCodeAt(i);
    counts.set(c, (counts.get(c) ?? 0) + 1);
    const next =
      c >= 97 && c <= 122 ? 'l' : c >= 65 && c <= 90 ? 'u' : c >= 48 && c <= 57 ? 'd' : '';
    if (next === '') {
      kind = '';
      continue;
    }
    alnum++;
    // Upper then lower is how a word starts, not a sign of randomness.
    if (kind !== '' && kind !== next && !(kind === 'u' && next === 'l')) switches++;
    kind = next;
  }
  if (alnum < 20 || switches / alnum < 0.25) return false;
  let entropy = 0;
  for (const n of counts.values()) {
    const p = n / candidate.length;
    entropy -= p * Math.log2(p);
  }
  return entropy >= 3.3;
}

export interface SecretTextOptions {
  /** Names whose values are secrets (for `name=value` pairs in the text). */
  names: SecretNames;
  /** Also redact long random-looking strings. */
  heuristics: boolean;
  /** Extra regular expressions; every match is replaced. */
  extraPatterns: readonly RegExp[];
}

/**
 * Redacts the secrets in free text; returns `text` itself when there are none. `known` matches
 * values known to be secret (see `secretValues.ts`); they go first, so no other rule leaves a
 * part of one behind.
 */
export function redactSecretsInText(
  text: string,
  options: SecretTextOptions,
  known?: RegExp,
): string {
  let out = text;
  if (known !== undefined) {
    known.lastIndex = 0;
    out = out.replace(known, REDACTED);
  }
  out = scan(out, options);
  for (const pattern of options.extraPatterns) {
    pattern.lastIndex = 0;
    out = out.replace(pattern, REDACTED);
  }
  return out;
}

function scan(text: string, { names, heuristics }: SecretTextOptions): string {
  let out = '';
  let copied = 0;
  let pos = 0;
  // A rejected blob is searched again for the other patterns, but not for blobs inside it.
  let blobsFrom = heuristics ? 0 : Number.POSITIVE_INFINITY;
  const pairs = new PairReader(text, names);
  const replace = (start: number, end: number, replacement: string) => {
    out += text.slice(copied, start) + replacement;
    copied = end;
  };
  while (pos < text.length) {
    const re = pos >= blobsFrom ? SCAN_WITH_BLOBS : SCAN;
    re.lastIndex = pos;
    const m = re.exec(text);
    if (re === SCAN && (m === null || m.index >= blobsFrom)) {
      if (blobsFrom >= text.length) break;
      pos = blobsFrom;
      continue;
    }
    if (m === null) break;
    const end = m.index + m[0].length;
    const groups = m.groups ?? {};
    if (groups.url !== undefined) {
      replace(m.index + groups.url.length, end, URL_PASSWORD_MASK);
      pos = end;
    } else if (groups.scheme !== undefined) {
      replace(m.index + groups.scheme.length, end, REDACTED);
      pos = end;
    } else if (groups.sep !== undefined || groups.verb !== undefined) {
      const value = pairs.secretValue(m.index, end, groups.verb !== undefined);
      if (value !== undefined) {
        replace(value.start, value.end, REDACTED);
        pos = value.end;
      } else {
        pos = end;
      }
    } else if (groups.blob !== undefined) {
      if (looksRandom(groups.blob)) {
        replace(m.index, end, REDACTED);
        pos = end;
      } else {
        blobsFrom = end;
        pos = m.index;
      }
    } else {
      replace(m.index, end, REDACTED);
      pos = end;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}
