/**
 * OpenTelemetry traces and metric labels through the real mcp-factory bin (issue 19 item 3): a
 * real OTLP/HTTP receiver collects what the processes export; clients of both eras send their
 * trace context in `_meta` (and as the HTTP `traceparent` header), and the spans continue it —
 * across processes when mcp-factory mirrors another mcp-factory.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ERAS, type Era, versionOfEra } from '@mcpbox/framework';
import {
  clientTraceparent,
  firstText,
  type ReceivedSpan,
  runServerBin,
  startOtlpReceiver,
} from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const BIN = fileURLToPath(new URL('../../../bin/mcp-factory.js', import.meta.url));
const RECORD_IMPORTS = fileURLToPath(
  new URL('../../../../framework/src/__fixtures__/recordOtelImports.mjs', import.meta.url),
);
const SERVER = 2;
const CLIENT = 3;
type After = { after(fn: () => unknown): void };

function scratch(t: After): string {
  const dir = mkdtempSync(join(tmpdir(), 'factory-traces-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function newClient(era: Era): Client {
  return new Client(
    { name: 'traces-test', version: '1.0.0' },
    { versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } } },
  );
}

async function httpClient(t: After, url: string, era: Era, headers?: Record<string, string>) {
  const client = newClient(era);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }),
  );
  t.after(() => client.close());
  return client;
}

async function stdioClient(t: After, era: Era, args: string[], env: Record<string, string>) {
  const client = newClient(era);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, ...args],
      env: { ...(process.env as Record<string, string>), ...env },
      stderr: 'ignore',
    }),
  );
  t.after(() => client.close());
  return client;
}

/** mcp-factory -p echo over HTTP, exporting traces as `service`; resolves with its MCP URL. */
async function httpFactory(t: After, endpoint: string, service: string, dir: string) {
  const server = await runServerBin(
    t,
    BIN,
    ['--http', '0', '--health-port', '0', '-p', 'echo'],
    /serving MCP at (http:\S+)/,
    {
      cwd: dir,
      env: {
        HOME: dir,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: service,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    },
  );
  assert.ok(server.match, `mcp-factory did not start:\n${server.stderr()}`);
  return server.match[1];
}

const echo = (client: Client, message: string, traceparent?: string) =>
  client.callTool({
    name: 'echo',
    arguments: { message },
    ...(traceparent && { _meta: { traceparent } }),
  });

function find(spans: ReceivedSpan[], where: Partial<ReceivedSpan>): ReceivedSpan | undefined {
  return spans.find((span) =>
    Object.entries(where).every(([key, value]) => span[key as keyof ReceivedSpan] === value),
  );
}

function must(spans: ReceivedSpan[], where: Partial<ReceivedSpan>): ReceivedSpan {
  const span = find(spans, where);
  assert.ok(
    span,
    `no span ${JSON.stringify(where)}; got ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`,
  );
  return span;
}

test('HTTP: request and tool-call spans continue the client trace (_meta in both eras, the traceparent header)', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const dir = scratch(t);
  const url = await httpFactory(t, receiver.endpoint, 'factory-http', dir);

  const modern = clientTraceparent();
  const legacy = clientTraceparent();
  const header = clientTraceparent();
  const modernClient = await httpClient(t, url, 'modern');
  assert.equal(firstText(await echo(modernClient, 'm', modern.traceparent)), 'm');
  const legacyClient = await httpClient(t, url, 'legacy');
  assert.equal(firstText(await echo(legacyClient, 'l', legacy.traceparent)), 'l');
  const headerClient = await httpClient(t, url, 'legacy', { traceparent: header.traceparent });
  await headerClient.listTools();

  const spans = await receiver.waitFor(
    (all) =>
      [modern, legacy].every((c) =>
        all.some((s) => s.traceId === c.traceId && s.name === 'execute_tool echo'),
      ) && all.some((s) => s.traceId === header.traceId && s.name === 'tools/list'),
  );
  for (const [caller, era] of [
    [modern, '2026-07-28'],
    [legacy, undefined],
  ] as const) {
    const request = must(spans, { traceId: caller.traceId, name: 'tools/call echo' });
    assert.equal(
      request.parentSpanId,
      caller.spanId,
      'the request span is the client span’s child',
    );
    assert.equal(request.kind, SERVER);
    assert.equal(request.service, 'factory-http');
    assert.equal(request.attributes['mcp.method.name'], 'tools/call');
    assert.equal(request.attributes['gen_ai.tool.name'], 'echo');
    assert.equal(request.attributes['mcp.protocol.version'], era);
    const tool = must(spans, { traceId: caller.traceId, name: 'execute_tool echo' });
    assert.equal(tool.parentSpanId, request.spanId);
  }
  const listed = must(spans, { traceId: header.traceId, name: 'tools/list' });
  assert.equal(listed.parentSpanId, header.spanId);
});

test('mirroring: the upstream mcp-factory’s request span is the child of our upstream call, across processes', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const dir = scratch(t);
  const upstreamUrl = await httpFactory(t, receiver.endpoint, 'upstream', dir);
  const config = join(dir, 'front.yaml');
  writeFileSync(
    config,
    [
      'plugins:',
      '  up:',
      `    url: ${upstreamUrl}`,
      'otel:',
      `  endpoint: ${receiver.endpoint}`,
      '  service_name: front',
    ].join('\n'),
  );
  const caller = clientTraceparent();
  const client = await stdioClient(t, 'modern', ['-c', config, '--log-level', 'warning'], {
    HOME: dir,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  assert.equal(firstText(await echo(client, 'across', caller.traceparent)), 'across');

  // Five spans: three in front (request, tool call, upstream call), two upstream.
  const spans = await receiver.waitFor(
    (all) => all.filter((s) => s.traceId === caller.traceId).length >= 5,
  );
  const inTrace = spans.filter((s) => s.traceId === caller.traceId);
  const request = must(inTrace, { service: 'front', name: 'tools/call echo', kind: SERVER });
  assert.equal(request.parentSpanId, caller.spanId);
  const tool = must(inTrace, { service: 'front', name: 'execute_tool echo' });
  assert.equal(tool.parentSpanId, request.spanId);
  const call = must(inTrace, { service: 'front', name: 'tools/call echo', kind: CLIENT });
  assert.equal(call.parentSpanId, tool.spanId);
  assert.equal(call.attributes['mcpbox.upstream'], 'up');
  const remote = must(inTrace, { service: 'upstream', name: 'tools/call echo', kind: SERVER });
  assert.equal(remote.parentSpanId, call.spanId, 'the upstream continues our client span');
  const remoteTool = must(inTrace, { service: 'upstream', name: 'execute_tool echo' });
  assert.equal(remoteTool.parentSpanId, remote.spanId);
});

test('not configured: nothing exported and no OpenTelemetry module loaded (configured: loaded, as a control)', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const dir = scratch(t);
  // With an audit log, whose records would also go out as log records were OTLP on.
  const config = join(dir, 'factory.yaml');
  writeFileSync(config, 'audit_log: audit.jsonl\n');
  const args = ['-c', config, '-p', 'echo', '--log-level', 'warning'];
  const imports = (name: string) => {
    const file = join(dir, name);
    writeFileSync(file, '');
    return file;
  };
  const off = imports('off.txt');
  const on = imports('on.txt');
  const nodeOptions = [process.env.NODE_OPTIONS, `--import=${RECORD_IMPORTS}`]
    .filter(Boolean)
    .join(' ');
  for (const era of ERAS) {
    const client = await stdioClient(t, era, args, {
      HOME: dir,
      NODE_OPTIONS: nodeOptions,
      OTEL_IMPORTS_FILE: off,
    });
    assert.equal(firstText(await echo(client, era, clientTraceparent().traceparent)), era);
    await client.close();
  }
  const control = await stdioClient(t, 'modern', args, {
    HOME: dir,
    NODE_OPTIONS: nodeOptions,
    OTEL_IMPORTS_FILE: on,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: 'control',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  const traced = clientTraceparent();
  await echo(control, 'on', traced.traceparent);
  await receiver.waitFor((all) => all.some((s) => s.traceId === traced.traceId));
  await control.close();

  assert.equal(readFileSync(off, 'utf8'), '', 'no @opentelemetry module was resolved');
  assert.match(readFileSync(on, 'utf8'), /@opentelemetry\/sdk-trace/);
  assert.match(readFileSync(on, 'utf8'), /@opentelemetry\/sdk-logs/);
  assert.ok(
    receiver.spans().every((s) => s.service === 'control'),
    'only the configured process exported',
  );
});

test('/metrics counts requests by method and era', async (t) => {
  const dir = scratch(t);
  const config = join(dir, 'factory.yaml');
  writeFileSync(config, 'metrics: true\nplugins_load: [echo]\n');
  const server = await runServerBin(
    t,
    BIN,
    ['-c', config, '--http', '0', '--health-port', '0'],
    /health endpoints at (http:\S+)\/health[\s\S]*serving MCP at (http:\S+)/,
    { cwd: dir, env: { HOME: dir } },
  );
  assert.ok(server.match, `mcp-factory did not start:\n${server.stderr()}`);
  const [, health, url] = server.match;
  const modern = await httpClient(t, url, 'modern');
  await echo(modern, 'a');
  await echo(modern, 'b');
  const legacy = await httpClient(t, url, 'legacy');
  await echo(legacy, 'c');
  await legacy.listTools();
  await assert.rejects(legacy.callTool({ name: 'no_such_tool', arguments: {} }));

  const text = await (await fetch(`${health}/metrics`)).text();
  const has = (line: string) =>
    assert.ok(
      text.split('\n').includes(line),
      `missing: ${line}\n${text
        .split('\n')
        .filter((l) => l.startsWith('mcpbox_requests'))
        .join('\n')}`,
    );
  has('mcpbox_requests_total{method="tools/call",era="2026-07-28",outcome="ok"} 2');
  has('mcpbox_requests_total{method="tools/call",era="2025-11-25",outcome="ok"} 1');
  has('mcpbox_requests_total{method="tools/list",era="2025-11-25",outcome="ok"} 1');
  has('mcpbox_requests_total{method="tools/call",era="2025-11-25",outcome="error"} 1');
  assert.match(
    text,
    /^mcpbox_request_duration_seconds_count\{method="tools\/call",era="2026-07-28"\} 2$/m,
  );
});

test('an unreachable collector: calls go on, and one warning says where spans were to go', async (t) => {
  const dir = scratch(t);
  const closed = createNetServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '-p', 'echo'],
    env: {
      ...(process.env as Record<string, string>),
      HOME: dir,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = newClient('modern');
  await client.connect(transport);
  t.after(() => client.close());
  assert.equal(firstText(await echo(client, 'before', clientTraceparent().traceparent)), 'before');
  const warning = new RegExp(
    `WARN .*OpenTelemetry: .*exporting to http://127\\.0\\.0\\.1:${port}/v1/traces`,
  );
  const deadline = Date.now() + 120_000;
  while (!warning.test(stderr)) {
    assert.ok(Date.now() < deadline, `no export warning; stderr:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(firstText(await echo(client, 'after', clientTraceparent().traceparent)), 'after');
  assert.equal(stderr.match(/OpenTelemetry:/g)?.length, 1, 'one warning, not one per span');
});
