/**
 * Whether traces are on, and where they go: the `otel` config key, else the standard
 * OpenTelemetry variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER_ARG`). No endpoint anywhere means off. Log records
 * (the audit trail's) go to the same collector's `/v1/logs`, or `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`.
 *
 * @module
 */
import { ConfigError } from '../errors.ts';

/** The `otel:` mapping of the config file. */
export interface OtelConfig {
  /**
   * OTLP/HTTP endpoint: a base URL (`http://collector:4318`, traces go to `/v1/traces` under
   * it) or the full traces URL (ending in `/v1/traces`).
   */
  endpoint?: string;
  /** `service.name` of the spans. Default the server's name. */
  service_name?: string;
  /** Share of new traces recorded, 0 to 1; a caller's sampled trace is always continued. Default 1. */
  sample_ratio?: number;
}

/** Resolved: where spans are exported and how. */
export interface TelemetrySettings {
  tracesUrl: string;
  serviceName: string;
  sampleRatio: number;
  /** How long finished spans wait to be exported in one batch, ms. */
  exportDelayMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

const TRACES_PATH = '/v1/traces';
const LOGS_PATH = '/v1/logs';

function checkUrl(url: string, from: string): string {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new ConfigError([`${from}: expected an http(s) URL, got ${JSON.stringify(url)}`]);
  }
  return url;
}

function ratioOf(value: unknown, from: string): number {
  const ratio = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof ratio !== 'number' || !(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError([`${from}: expected a number from 0 to 1, got ${JSON.stringify(value)}`]);
  }
  return ratio;
}

/** `path` under a base endpoint; a URL naming another signal's path becomes its sibling. */
function underBase(base: string, path: string): string {
  const url = new URL(base);
  const other = [TRACES_PATH, LOGS_PATH].find((p) => url.pathname.endsWith(p));
  const root = other ? url.pathname.slice(0, -other.length) : url.pathname;
  url.pathname = `${root.replace(/\/+$/, '')}${path}`;
  return url.href;
}

/**
 * Where one signal goes: `otel.endpoint` (a base, or a signal's full URL), else the signal's own
 * variable as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT` with the signal's path. `undefined` when
 * none is set or `OTEL_SDK_DISABLED` is.
 */
function signalUrl(
  config: OtelConfig | undefined,
  env: Env,
  signal: 'TRACES' | 'LOGS',
  path: string,
): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  if (config?.endpoint) return underBase(checkUrl(config.endpoint, 'otel.endpoint'), path);
  const own = `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`;
  const ownUrl = env[own];
  if (ownUrl) return checkUrl(ownUrl, own);
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? underBase(checkUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT'), path) : undefined;
}

/** A batch delay variable in ms, 1000 when unset or not a positive integer. */
function delayOf(value: string | undefined): number {
  const delay = Number(value);
  return Number.isInteger(delay) && delay > 0 ? delay : 1000;
}

const serviceNameOf = (config: OtelConfig | undefined, env: Env, fallback: string) =>
  config?.service_name || env.OTEL_SERVICE_NAME || fallback;

/** Where log records are exported, and as which service. */
export interface LogExportSettings {
  logsUrl: string;
  serviceName: string;
  /** How long records wait to be exported in one batch, ms. */
  exportDelayMs: number;
}

/**
 * Where log records go, or `undefined` when OTLP is off: `otel.endpoint`'s `/v1/logs`, else
 * `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT` as it is, else `OTEL_EXPORTER_OTLP_ENDPOINT`'s `/v1/logs`.
 */
export function resolveLogExport(
  config: OtelConfig | undefined,
  env: Env,
  defaultServiceName: string,
): LogExportSettings | undefined {
  const logsUrl = signalUrl(config, env, 'LOGS', LOGS_PATH);
  if (logsUrl === undefined) return undefined;
  return {
    logsUrl,
    serviceName: serviceNameOf(config, env, defaultServiceName),
    exportDelayMs: delayOf(env.OTEL_BLRP_SCHEDULE_DELAY),
  };
}

/**
 * The settings, or `undefined` when traces are off. Throws a {@link ConfigError} naming the key
 * or variable for a wrong endpoint or ratio.
 */
export function resolveTelemetry(
  config: OtelConfig | undefined,
  env: Env,
  defaultServiceName: string,
): TelemetrySettings | undefined {
  const tracesUrl = signalUrl(config, env, 'TRACES', TRACES_PATH);
  if (tracesUrl === undefined) return undefined;
  const sampleRatio =
    config?.sample_ratio !== undefined
      ? ratioOf(config.sample_ratio, 'otel.sample_ratio')
      : env.OTEL_TRACES_SAMPLER_ARG
        ? ratioOf(env.OTEL_TRACES_SAMPLER_ARG, 'OTEL_TRACES_SAMPLER_ARG')
        : 1;
  return {
    tracesUrl,
    serviceName: serviceNameOf(config, env, defaultServiceName),
    sampleRatio,
    exportDelayMs: delayOf(env.OTEL_BSP_SCHEDULE_DELAY),
  };
}
