/**
 * The zod schema of {@link WrittenConfig}: one builder per section of the file, over the leaves
 * of leaves.ts. Every leaf says what it expects in words a user can act on ("expected a port
 * number (0-65535), got \"abc\""), and accepts the string forms that `${VAR}` interpolation and
 * environment variables produce ("8000", "true").
 *
 * @module
 */
import { z } from 'zod';
import { CLUSTER_FALLBACKS, type ClusterFallback } from '../cluster/settings.ts';
import { PIN_MODES } from '../pins/modes.ts';
import type { PinMode } from '../pins/types.ts';
import { MIN_SECRET_LENGTH } from '../state/keys.ts';
import { buildLeaves, describeValue, type Leaves, leaf, oneOf, parseInteger } from './leaves.ts';
import { CODE_MODES, type CodeMode, type PluginEntry, type WrittenConfig } from './types.ts';

export { describeValue } from './leaves.ts';

/**
 * `cluster:` — a mapping, or just the Redis URL (what `MCP_REDIS_URL` gives); empty (`cluster:`
 * or `${MCP_REDIS_URL:-}` unset) means one process on its own, as if the key were absent.
 */
function clusterSchema() {
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
  return z.preprocess(
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
}

/** OpenTelemetry traces (telemetry/settings.ts reads them with the OTEL_* variables). */
function otelSchema({ optionalUrl, optionalString }: Leaves) {
  return z
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
}

/** `pins:` — how definitions are pinned; `pins: strict` is short for `{mode: strict}`. */
function pinsSchema({ nonEmpty }: Leaves) {
  return z.preprocess(
    (v) => (v === null ? {} : v === '' ? undefined : typeof v === 'string' ? { mode: v } : v),
    z
      .object(
        { mode: pinModeLeaf().optional(), file: nonEmpty.optional() },
        {
          error: (issue) =>
            issue.code === 'unrecognized_keys'
              ? `unknown ${issue.keys.join(', ')}: expected mode, file`
              : 'expected a mapping with mode (strict, warn, off) and file',
        },
      )
      .strict(),
  );
}

function pinModeLeaf() {
  return leaf<PinMode>(`one of ${PIN_MODES.join(', ')}`, oneOf(PIN_MODES));
}

/** One entry under `plugins:`; keys it does not know are kept for the plugin. */
function pluginEntrySchema({ bool, str, nonEmpty, stringList, stringMap, optionalUrl }: Leaves) {
  return z
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
        pin: pinModeLeaf().optional(),
        // Checked when the plugin is built, naming the key (openapi/settings.ts).
        openapi: z.unknown().optional(),
      },
      { error: 'expected a mapping of plugin settings' },
    )
    .loose();
}

/** What the server announces, and its log lines. */
function identityShape({ nonEmpty, version, str, logLevel, logFormat }: Leaves) {
  return {
    server_name: nonEmpty.optional(),
    version: version.optional(),
    instructions: str.optional(),
    log_level: logLevel.optional(),
    log_format: logFormat.optional(),
  };
}

/** Where and how the server listens, and its session and message limits. */
function listenShape({ nonEmpty, port, transport, bool, seconds, count }: Leaves) {
  return {
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
  };
}

/** Who may connect (API keys, OAuth), and the management surface. */
function accessShape(l: Leaves) {
  return {
    allow_unauthenticated: l.optionalBool.optional(),
    oauth_enabled: l.optionalBool.optional(),
    oauth_server_url: l.optionalUrl.optional(),
    oauth_public_url: l.optionalUrl.optional(),
    oauth_cache_ttl: l.seconds.optional(),
    oauth_required_scopes: l.stringList.optional(),
    // Read by auth/apiKeys.ts, which names each bad entry.
    api_keys: z
      .array(z.unknown(), {
        error: 'expected a list of API keys (name, sha256, groups, claims, scopes)',
      })
      .optional(),
    management_port: l.port.optional(),
    management_token: l.optionalString.optional(),
    management_console: l.bool.optional(),
  };
}

/** Which plugins load, from where, and how their tools are named and listed. */
function pluginsShape(l: Leaves) {
  const pluginEntry = pluginEntrySchema(l);
  const shape = {
    auto_prefix: l.bool.optional(),
    dynamic_dispatch: l.bool.optional(),
    // `code_mode: true` in YAML is a boolean: it means `on`, as `false` means `off`.
    code_mode: leaf<CodeMode>(`one of ${CODE_MODES.join(', ')}`, (v) =>
      v === true ? 'on' : v === false ? 'off' : oneOf(CODE_MODES, { true: 'on', false: 'off' })(v),
    ).optional(),
    defer_loading: l.stringList.optional(),
    autoload: l.stringList.optional(),
    plugins_load: l.stringList.optional(),
    // `echo:` with nothing under it is an entry with all defaults.
    plugins: z
      .record(
        z.string(),
        z.preprocess((v) => (v === null ? {} : v), pluginEntry),
        { error: 'expected a mapping of plugin names to settings' },
      )
      .optional(),
    plugin_dirs: l.stringList.optional(),
    plugin_config_dir: l.nonEmpty.optional(),
    skills_dir: l.nonEmpty.optional(),
  };
  return { pluginEntry, shape };
}

/** The tool-call log and what it redacts. */
function toolLogShape({ nonEmpty, optionalString, patternList, bool }: Leaves) {
  return {
    tool_log_dir: nonEmpty.optional(),
    // Empty is off, so `${MCP_AUDIT_LOG:-}` can leave it out.
    audit_log: optionalString.optional(),
    redact_keys: patternList.optional(),
    redact_values: patternList.optional(),
    redact_heuristics: bool.optional(),
  };
}

/** The sections read by their own modules: the gate, metrics, the cluster, traces. */
function operationsShape(l: Leaves) {
  return {
    gate: z
      .record(z.string(), z.unknown(), { error: 'expected a mapping of gate settings' })
      .optional(),
    views: z
      .record(z.string(), z.unknown(), { error: 'expected a mapping of view names to settings' })
      .optional(),
    policy: z
      .record(z.string(), z.unknown(), { error: 'expected a mapping with default and rules' })
      .optional(),
    view: l.nonEmpty.optional(),
    limits: z
      .record(z.string(), z.unknown(), {
        error: 'expected a mapping with per_principal, tools, exempt',
      })
      .optional(),
    secrets: z
      .record(z.string(), z.unknown(), { error: 'expected a mapping of secret backend settings' })
      .optional(),
    metrics: l.bool.optional(),
    cluster: clusterSchema().optional(),
    otel: otelSchema(l).optional(),
    pins: pinsSchema(l).optional(),
    // Read by results/settings.ts, which names each bad key; `result_preview:` alone is on.
    result_preview: z
      .union([z.literal(false), z.null(), z.record(z.string(), z.unknown())], {
        error: 'expected false or a mapping of result preview settings',
      })
      .optional(),
  };
}

/**
 * The schemas, built on the first parse: some hundred zod schemas (~0.15 MB of heap and a few
 * milliseconds) that a server whose configuration is not read, ipybox's, would otherwise build
 * at start-up, before its first answer (bench/startup.ts).
 */
function buildSchemas() {
  const leaves = buildLeaves();
  const plugins = pluginsShape(leaves);
  /** The known top-level keys and how each is read. Unknown keys are reported, not rejected. */
  const writtenConfigShape = {
    ...identityShape(leaves),
    ...listenShape(leaves),
    ...accessShape(leaves),
    ...plugins.shape,
    ...toolLogShape(leaves),
    ...operationsShape(leaves),
  };
  return {
    writtenConfigShape,
    pluginEntry: plugins.pluginEntry,
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
