/**
 * Whether traces are on, and where they go: the `otel` config key, else the standard
 * OpenTelemetry variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER_ARG`). No endpoint anywhere means off.
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

/** A base endpoint gets the traces path; a URL already naming it is kept. */
function tracesUrlOf(base: string): string {
  const url = new URL(base);
  if (url.pathname.endsWith(TRACES_PATH)) return url.href;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${TRACES_PATH}`;
  return url.href;
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
  let tracesUrl: string | undefined;
  if (config?.endpoint) tracesUrl = tracesUrlOf(checkUrl(config.endpoint, 'otel.endpoint'));
  else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    tracesUrl = checkUrl(
      env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    );
  } else if (env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    tracesUrl = tracesUrlOf(
      checkUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    );
  }
  if (tracesUrl === undefined || env.OTEL_SDK_DISABLED === 'true') return undefined;
  const sampleRatio =
    config?.sample_ratio !== undefined
      ? ratioOf(config.sample_ratio, 'otel.sample_ratio')
      : env.OTEL_TRACES_SAMPLER_ARG
        ? ratioOf(env.OTEL_TRACES_SAMPLER_ARG, 'OTEL_TRACES_SAMPLER_ARG')
        : 1;
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  return {
    tracesUrl,
    serviceName: config?.service_name || env.OTEL_SERVICE_NAME || defaultServiceName,
    sampleRatio,
    exportDelayMs: Number.isInteger(delay) && delay > 0 ? delay : 1000,
  };
}
