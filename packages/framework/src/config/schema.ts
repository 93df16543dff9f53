/**
 * The zod schema of {@link WrittenConfig}. Every leaf says what it expects in words a user can
 * act on ("expected a port number (0-65535), got \"abc\""), and accepts the string forms that
 * `${VAR}` interpolation and environment variables produce ("8000", "true").
 *
 * @module
 */
import { z } from 'zod';
import { CLUSTER_FALLBACKS, type ClusterFallback } from '../cluster/settings.ts';
import { MIN_SECRET_LENGTH } from '../state/keys.ts';
import {
  CODE_MODES,
  type CodeMode,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
  type PluginEntry,
  type TransportKind,
  type WrittenConfig,
} from './types.ts';

/** Short, quoted rendering of a wrong value for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}…` : value);
  return String(value);
}

/**
 * A leaf that converts what was written into the wanted value, or reports `expected …`.
 * `parse` returns `undefined` for "not acceptable".
 */
function leaf<T>(expected: string, parse: (value: unknown) => T | undefined) {
  return z.unknown().transform((value, ctx): T => {
    const parsed = parse(value);
    if (parsed === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `expected ${expected}, got ${describeValue(value)}`,
      });
      return z.NEVER;
    }
    return parsed;
  });
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (TRUE.has(word)) return true;
    if (FALSE.has(word)) return false;
  }
  return undefined;
}

function parseInteger(value: unknown, min: number, max: number): number | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*\d+\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  return Number.isInteger(number) && number >= min && number <= max ? number : undefined;
}

function oneOf<T extends string>(words: readonly T[], aliases: Record<string, T> = {}) {
  return (value: unknown): T | undefined => {
    if (typeof value !== 'string') return undefined;
    const word = value.trim().toLowerCase();
    return (words as readonly string[]).includes(word) ? (word as T) : aliases[word];
  };
}

/**
 * The schemas, built on the first parse: some hundred zod schemas (~0.15 MB of heap and a few
 * milliseconds) that a server whose configuration is not read, ipybox's, would otherwise build
 * at start-up, before its first answer (bench/startup.ts).
 */
function buildSchemas() {
  const str = leaf('a string', (v) => (typeof v === 'string' ? v : undefined));
  const nonEmpty = leaf('a non-empty string', (v) =>
    typeof v === 'string' && v.trim() !== '' ? v : undefined,
  );
  /** Empty means "not set", so `${TOKEN:-}` can leave an optional value out on purpose. */
  const optionalString = leaf('a string', (v) => (typeof v === 'string' ? v : undefined)).transform(
    (v) => (v === '' ? undefined : v),
  );
  const optionalUrl = leaf('an http(s) URL', (v) => {
    if (typeof v !== 'string') return undefined;
    if (v === '') return '';
    return URL.canParse(v) && /^https?:$/.test(new URL(v).protocol) ? v : undefined;
  }).transform((v) => (v === '' ? undefined : v));
  const version = leaf('a version string', (v) =>
    typeof v === 'string' || typeof v === 'number' ? String(v) : undefined,
  );
  const bool = leaf('true or false', parseBoolean);
  /** Empty means "not set", so `${VAR:-}` leaves the decision to the default. */
  const optionalBool = leaf<boolean | ''>('true or false', (v) =>
    v === '' ? '' : parseBoolean(v),
  ).transform((v) => (v === '' ? undefined : v));
  const port = leaf('a port number (0-65535)', (v) => parseInteger(v, 0, 65535));
  const count = leaf('a whole number (0 or more)', (v) =>
    parseInteger(v, 0, Number.MAX_SAFE_INTEGER),
  );
  const seconds = leaf('a whole number of seconds (0 or more)', (v) =>
    parseInteger(v, 0, Number.MAX_SAFE_INTEGER),
  );
  const isMapping = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  const stringList = leaf('a list of strings', (v) => (Array.isArray(v) ? v : undefined)).pipe(
    z.array(str),
  );
  const stringMap = leaf('a mapping of strings', (v) => (isMapping(v) ? v : undefined)).pipe(
    z.record(z.string(), str),
  );
  /** A JavaScript regular expression that compiles and cannot match the empty string. */
  const pattern = z.unknown().transform((value, ctx): string => {
    let problem: string | undefined;
    if (typeof value !== 'string' || value === '') problem = 'a non-empty string';
    else {
      try {
        if (new RegExp(value).test('')) problem = 'one that cannot match the empty string';
      } catch (error) {
        problem = `a valid one (${(error as Error).message})`;
      }
    }
    if (problem === undefined) return value as string;
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `expected a regular expression, ${problem}; got ${describeValue(value)}`,
    });
    return z.NEVER;
  });
  const patternList = leaf('a list of regular expressions', (v) =>
    Array.isArray(v) ? v : undefined,
  ).pipe(z.array(pattern));
  const logLevel = leaf<LogLevel>(
    `one of ${LOG_LEVELS.join(', ')}`,
    oneOf(LOG_LEVELS, { warn: 'warning' }),
  );
  const logFormat = leaf<LogFormat>(`one of ${LOG_FORMATS.join(', ')}`, oneOf(LOG_FORMATS));
  const transport = leaf<TransportKind>(
    'one of stdio, http (or streamable-http), sse',
    oneOf(['stdio', 'http', 'sse'] as const, {
      'streamable-http': 'http',
      streamable_http: 'http',
      streamablehttp: 'http',
    }),
  );

  /**
   * `cluster:` — a mapping, or just the Redis URL (what `MCP_REDIS_URL` gives); empty (`cluster:`
   * or `${MCP_REDIS_URL:-}` unset) means one process on its own, as if the key were absent.
   */
  const redisUrl = leaf('a redis:// or rediss:// URL', (v) =>
    typeof v === 'string' && URL.canParse(v) && /^rediss?:$/.test(new URL(v).protocol)
      ? v
      : undefined,
  );
  // Unlike other leaves, a wrong secret is never echoed: the message says only its length.
  const clusterSecret = z.unknown().transform((v, ctx): string => {
    if (typeof v === 'string' && v.length >= MIN_SECRET_LENGTH) return v;
    ctx.addIssue({
      code: 'custom',
      message: `expected a secret of at least ${MIN_SECRET_LENGTH} characters (e.g. openssl rand -base64 32), got ${typeof v === 'string' ? `${v.length} characters` : describeValue(v)}`,
    });
    return z.NEVER;
  });
  const clusterConfig = z.preprocess(
    (v) => (v === null || v === '' ? undefined : typeof v === 'string' ? { redis_url: v } : v),
    z
      .object(
        {
          redis_url: redisUrl,
          name: leaf('a name of letters, digits, _ . -', (v) =>
            typeof v === 'string' && /^[\w.-]+$/.test(v) ? v : undefined,
          ).optional(),
          fallback: leaf<ClusterFallback>(
            `one of ${CLUSTER_FALLBACKS.join(', ')}`,
            oneOf(CLUSTER_FALLBACKS),
          ).optional(),
          secret: clusterSecret.optional(),
        },
        { error: 'expected a mapping with redis_url (or a Redis URL)' },
      )
      .strict()
      .optional(),
  );

  /** OpenTelemetry traces (telemetry/settings.ts reads them with the OTEL_* variables). */
  const otelConfig = z
    .object(
      {
        endpoint: optionalUrl.optional(),
        service_name: optionalString.optional(),
        sample_ratio: leaf('a number from 0 to 1', (v) => {
          const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
          return typeof n === 'number' && n >= 0 && n <= 1 ? n : undefined;
        }).optional(),
      },
      {
        error: (issue) =>
          issue.code === 'unrecognized_keys'
            ? `unknown ${issue.keys.join(', ')}: expected endpoint, service_name, sample_ratio`
            : 'expected a mapping with endpoint, service_name, sample_ratio',
      },
    )
    .strict();

  const pluginEntry = z
    .object(
      {
        enabled: bool.optional(),
        prefix: leaf('a string or false', (v) =>
          typeof v === 'string' || v === false ? v : undefined,
        ).optional(),
        path: nonEmpty.optional(),
        description: str.optional(),
        command: nonEmpty.optional(),
        args: stringList.optional(),
        env: stringMap.optional(),
        cwd: nonEmpty.optional(),
        url: optionalUrl.optional(),
        headers: stringMap.optional(),
        defer_loading: bool.optional(),
      },
      { error: 'expected a mapping of plugin settings' },
    )
    .loose();

  /** The known top-level keys and how each is read. Unknown keys are reported, not rejected. */
  const writtenConfigShape = {
    server_name: nonEmpty.optional(),
    version: version.optional(),
    instructions: str.optional(),
    log_level: logLevel.optional(),
    log_format: logFormat.optional(),
    host: nonEmpty.optional(),
    port: port.optional(),
    health_port: port.optional(),
    health_host: nonEmpty.optional(),
    transport: transport.optional(),
    stateless: bool.optional(),
    resumable_streams: bool.optional(),
    session_idle_timeout: seconds.optional(),
    max_message_size: leaf('a number of bytes (1024 or more)', (v) =>
      parseInteger(v, 1024, Number.MAX_SAFE_INTEGER),
    ).optional(),
    max_sessions: count.optional(),
    max_sessions_per_caller: count.optional(),
    max_listens: count.optional(),
    max_listens_per_caller: count.optional(),
    allow_unauthenticated: optionalBool.optional(),
    oauth_enabled: optionalBool.optional(),
    oauth_server_url: optionalUrl.optional(),
    oauth_public_url: optionalUrl.optional(),
    oauth_cache_ttl: seconds.optional(),
    oauth_required_scopes: stringList.optional(),
    management_port: port.optional(),
    management_token: optionalString.optional(),
    management_console: bool.optional(),
    auto_prefix: bool.optional(),
    dynamic_dispatch: bool.optional(),
    // `code_mode: true` in YAML is a boolean: it means `on`, as `false` means `off`.
    code_mode: leaf<CodeMode>(`one of ${CODE_MODES.join(', ')}`, (v) =>
      v === true ? 'on' : v === false ? 'off' : oneOf(CODE_MODES, { true: 'on', false: 'off' })(v),
    ).optional(),
    defer_loading: stringList.optional(),
    autoload: stringList.optional(),
    plugins_load: stringList.optional(),
    // `echo:` with nothing under it is an entry with all defaults.
    plugins: z
      .record(
        z.string(),
        z.preprocess((v) => (v === null ? {} : v), pluginEntry),
        { error: 'expected a mapping of plugin names to settings' },
      )
      .optional(),
    plugin_dirs: stringList.optional(),
    plugin_config_dir: nonEmpty.optional(),
    tool_log_dir: nonEmpty.optional(),
    redact_keys: patternList.optional(),
    redact_values: patternList.optional(),
    redact_heuristics: bool.optional(),
    gate: z
      .record(z.string(), z.unknown(), { error: 'expected a mapping of gate settings' })
      .optional(),
    metrics: bool.optional(),
    cluster: clusterConfig.optional(),
    otel: otelConfig.optional(),
  };
  return {
    writtenConfigShape,
    pluginEntry,
    writtenConfigSchema: z.object(writtenConfigShape).strip(),
  };
}

let schemas: ReturnType<typeof buildSchemas> | undefined;
const built = () => {
  schemas ??= buildSchemas();
  return schemas;
};

/** Parses one layer (file, environment or overrides); unknown keys are dropped here. */
export const writtenConfigSchema = (): ReturnType<typeof buildSchemas>['writtenConfigSchema'] =>
  built().writtenConfigSchema;

let knownKeys: ReadonlySet<string> | undefined;
/** The known top-level keys. */
export function knownConfigKeys(): ReadonlySet<string> {
  knownKeys ??= new Set(Object.keys(built().writtenConfigShape));
  return knownKeys;
}

// Compile-time check that the schema's output is exactly the documented written type.
type SchemaOutput = z.output<ReturnType<typeof writtenConfigSchema>>;
type Assert<T extends true> = T;
export type _SchemaMatchesWrittenConfig = Assert<
  SchemaOutput extends WrittenConfig ? (WrittenConfig extends SchemaOutput ? true : false) : false
>;
export type _PluginEntryAssignable = Assert<
  z.output<ReturnType<typeof buildSchemas>['pluginEntry']> extends PluginEntry ? true : false
>;
