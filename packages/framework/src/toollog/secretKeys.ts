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
  'pw',
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

const wordsOf = (name: string) => name.split(WORD_BREAK).map((w) => w.toLowerCase());

/** Whether `name` is, by the built-in rules, the name of a secret. */
export function isSecretName(name: string): boolean {
  const words = wordsOf(name);
  return words.some((w) => SECRET_WORDS.has(w)) || SECRET_RUN.test(words.join(''));
}

/**
 * Words that say a secret follows in a sentence — "my password is …", "the passphrase was …".
 * Narrower than the secret words: "the session is closed" or "the key is missing" say nothing
 * secret.
 */
const SPOKEN_SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'pw',
  'passphrase',
  'passcode',
  'secret',
]);

/** Whether "`name` is …" in a sentence tells a secret. */
export function isSpokenSecretName(name: string): boolean {
  return wordsOf(name).some((w) => SPOKEN_SECRET_WORDS.has(w));
}

/** Fields that name what a `{name, value}` record holds (`{"Name": "DB_PASSWORD", "Value": …}`). */
export function isLabelField(name: string): boolean {
  return /^(?:name|key)$/i.test(name);
}

/** The field holding a `{name, value}` record's value. */
export function isValueField(name: string): boolean {
  return /^value$/i.test(name);
}

const SIX_TO_EIGHT_DIGITS = /^(?:\d{6,8}|\d{3}[ -]\d{3})$/;
const FOUR_TO_EIGHT_DIGITS = /^\d{4,8}$/;

/**
 * Whether `value` under `name` is a one-time code or a PIN: 6–8 digits (`461 329` too) under a
 * `code` (`code`, `verification_code`, `gate_unlock(code=…)`), 4–8 under a `pin`. Other codes —
 * `status_code: 404`, `exit_code: 1`, a postcode of 5 digits — stay readable.
 */
export function isOneTimeCode(name: string, value: unknown): boolean {
  if (typeof value !== 'string' && typeof value !== 'number') return false;
  const text = String(value);
  // The value first: most are no run of digits, and splitting the name costs more.
  if (!SIX_TO_EIGHT_DIGITS.test(text) && !FOUR_TO_EIGHT_DIGITS.test(text)) return false;
  const words = wordsOf(name);
  if (words.includes('pin')) return FOUR_TO_EIGHT_DIGITS.test(text);
  // `otpcode`, `verificationcode`: run together, the word still ends the name.
  return words.some((w) => w.endsWith('code')) && SIX_TO_EIGHT_DIGITS.test(text);
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
