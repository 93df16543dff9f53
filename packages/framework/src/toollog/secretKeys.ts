/**
 * Which names (object keys, `KEY=value` and `"key": value` in text) hold secrets. A name is split
 * into its words — `db_password`, `x-api-key`, `accessKey`, `APIKey` — so a secret word anywhere
 * in it counts, while a word that merely contains one (`author`, `bypass`, `monkey`) does not.
 *
 * @module
 */

/** A name containing one of these words is a secret's name. */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'pass',
  'passphrase',
  'passcode',
  'secret',
  'secrets',
  'token',
  'auth',
  'oauth',
  'authorization',
  'authentication',
  'bearer',
  'jwt',
  'cookie',
  'cookies',
  'credential',
  'credentials',
  'key',
  'apikey',
  'privatekey',
  'session',
  'otp',
  'totp',
  'mfa',
]);

/**
 * The same, for names whose words are run together (`APIKEY`, `dbpassword`, `accesstoken`).
 * `tokens` alone is left out on purpose: `max_tokens` and `total_tokens` are counts.
 */
const SECRET_RUN =
  /passw(?:or)?d|secret|credential|apikey|accesskey|privatekey|(?:access|refresh|id|auth|bearer|api|session|csrf|xsrf|client)tokens?|authorization/;

/** Word boundaries: anything not alphanumeric, and camelCase / PascalCase humps. */
const WORD_BREAK = /[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

/** Whether `name` is, by the built-in rules, the name of a secret. */
export function isSecretName(name: string): boolean {
  const words = name.split(WORD_BREAK).map((w) => w.toLowerCase());
  return words.some((w) => SECRET_WORDS.has(w)) || SECRET_RUN.test(words.join(''));
}

const CACHE_LIMIT = 4096;

/**
 * The built-in rules plus the configured extra patterns (regular expressions, matched
 * case-insensitively anywhere in the name), with a bounded cache: the same few keys come by on
 * every call.
 */
export class SecretNames {
  readonly #extra: readonly RegExp[];
  readonly #cache = new Map<string, boolean>();

  constructor(extraPatterns: readonly string[] = []) {
    this.#extra = extraPatterns.map((source) => new RegExp(source, 'i'));
  }

  has(name: string): boolean {
    let secret = this.#cache.get(name);
    if (secret === undefined) {
      secret = isSecretName(name) || this.#extra.some((re) => re.test(name));
      if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
      this.#cache.set(name, secret);
    }
    return secret;
  }
}
