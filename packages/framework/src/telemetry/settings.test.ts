import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../logging/index.ts';
import { resolveLogExport, resolveTelemetry } from './settings.ts';
import { exportProblems } from './tracing.ts';

test('off without an endpoint; the config key wins over the OTEL_* variables', () => {
  assert.equal(resolveTelemetry(undefined, {}, 'svc'), undefined);
  assert.equal(resolveTelemetry({ service_name: 'x' }, {}, 'svc'), undefined);
  assert.deepEqual(resolveTelemetry({ endpoint: 'http://collector:4318' }, {}, 'svc'), {
    tracesUrl: 'http://collector:4318/v1/traces',
    serviceName: 'svc',
    sampleRatio: 1,
    exportDelayMs: 1000,
  });
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318/otlp/',
    OTEL_SERVICE_NAME: 'from-env',
    OTEL_TRACES_SAMPLER_ARG: '0.25',
  };
  assert.deepEqual(resolveTelemetry(undefined, env, 'svc'), {
    tracesUrl: 'http://base:4318/otlp/v1/traces',
    serviceName: 'from-env',
    sampleRatio: 0.25,
    exportDelayMs: 1000,
  });
  const traces = { ...env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://t.example/custom' };
  assert.equal(resolveTelemetry(undefined, traces, 'svc')?.tracesUrl, 'https://t.example/custom');
  const configured = resolveTelemetry(
    { endpoint: 'http://c:4318/v1/traces', service_name: 'mine', sample_ratio: 0 },
    env,
    'svc',
  );
  assert.equal(configured?.tracesUrl, 'http://c:4318/v1/traces');
  assert.equal(configured?.serviceName, 'mine');
  assert.equal(configured?.sampleRatio, 0);
  assert.equal(
    resolveTelemetry(undefined, { ...env, OTEL_SDK_DISABLED: 'true' }, 'svc'),
    undefined,
  );
});

test("log records go to the same collector's /v1/logs, or their own variable", () => {
  assert.equal(resolveLogExport(undefined, {}, 'svc'), undefined);
  assert.deepEqual(resolveLogExport({ endpoint: 'http://c:4318/v1/traces' }, {}, 'svc'), {
    logsUrl: 'http://c:4318/v1/logs',
    serviceName: 'svc',
    exportDelayMs: 1000,
  });
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318/otlp/',
    OTEL_BLRP_SCHEDULE_DELAY: '50',
  };
  assert.equal(resolveLogExport(undefined, env, 'svc')?.logsUrl, 'http://base:4318/otlp/v1/logs');
  assert.equal(resolveLogExport(undefined, env, 'svc')?.exportDelayMs, 50);
  const own = { ...env, OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'https://l.example/in' };
  assert.equal(resolveLogExport(undefined, own, 'svc')?.logsUrl, 'https://l.example/in');
  // Logs alone: no traces.
  const logsOnly = { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'https://l.example/in' };
  assert.equal(resolveTelemetry(undefined, logsOnly, 'svc'), undefined);
  assert.equal(
    resolveLogExport(undefined, { ...own, OTEL_SDK_DISABLED: 'true' }, 'svc'),
    undefined,
  );
  assert.throws(
    () => resolveLogExport(undefined, { OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'l:1' }, 's'),
    /OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: expected an http\(s\) URL/,
  );
});

test('a wrong endpoint or ratio is a ConfigError naming the variable or key', () => {
  assert.throws(
    () => resolveTelemetry(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, 's'),
    (error) =>
      error instanceof ConfigError &&
      /OTEL_EXPORTER_OTLP_ENDPOINT: expected an http\(s\) URL, got "collector:4318"/.test(
        error.message,
      ),
  );
  assert.throws(
    () =>
      resolveTelemetry(
        undefined,
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER_ARG: '2' },
        's',
      ),
    /OTEL_TRACES_SAMPLER_ARG: expected a number from 0 to 1, got "2"/,
  );
});

test('the otel: key of a config file is checked where it is written', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'otel-config-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'c.yaml');
  writeFileSync(file, 'otel:\n  endpoint: http://c:4318\n  service_name: s\n  sample_ratio: 0.5\n');
  assert.deepEqual(loadConfig({ file, env: {} }).otel, {
    endpoint: 'http://c:4318',
    service_name: 's',
    sample_ratio: 0.5,
  });
  writeFileSync(file, 'otel:\n  endpoint: nowhere\n  sample_ratio: 3\n  colour: red\n');
  assert.throws(
    () => loadConfig({ file, env: {} }),
    (error) =>
      error instanceof ConfigError &&
      /otel\.endpoint: expected an http\(s\) URL/.test(error.message) &&
      /otel\.sample_ratio: expected a number from 0 to 1, got 3/.test(error.message) &&
      /colour/.test(error.message),
  );
});

test('export problems: one warning a minute, the URL without credentials', () => {
  const lines: string[] = [];
  const logger = { warn: (msg: string) => lines.push(msg) } as unknown as Logger;
  let clock = 0;
  const diag = exportProblems('http://user:secret@collector:4318/v1/traces', logger, () => clock);
  diag.error('export failed', new Error('connect ECONNREFUSED to http://user:secret@collector'));
  diag.error('export failed again');
  clock += 61_000;
  diag.warn('still failing');
  assert.equal(lines.length, 2);
  assert.match(lines[0], /export failed connect ECONNREFUSED/);
  assert.match(lines[0], /exporting to http:\/\/collector:4318\/v1\/traces/);
  assert.ok(lines.every((line) => !line.includes('secret')));
  assert.match(lines[1], /still failing/);
});
