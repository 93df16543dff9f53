/**
 * One tool call from kernel code, traced across every hop (issue 19 item 3): the client's
 * request → execute_ipython_cell → the cell's run in the kernel → the tool server call the
 * generated runtime makes → our upstream call → the upstream mcp-factory's request. Real
 * processes (the ipybox bin over stdio, an mcp-factory over HTTP, a Python kernel), spans
 * collected by a real OTLP/HTTP receiver.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  clientTraceparent,
  type ReceivedSpan,
  runServerBin,
  startOtlpReceiver,
} from '@mcpbox/test-utils';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { FACTORY_BIN, startStdioIpybox, tempWorkspace, textOf } from './testing.ts';

const SERVER = 2;
const CLIENT = 3;

function must(spans: ReceivedSpan[], where: Partial<ReceivedSpan>): ReceivedSpan {
  const span = spans.find((s) =>
    Object.entries(where).every(([key, value]) => s[key as keyof ReceivedSpan] === value),
  );
  assert.ok(
    span,
    `no span ${JSON.stringify(where)}; got ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`,
  );
  return span;
}

test('a tool call from kernel code shows every hop in one trace, continuing the client’s', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const ws = await tempWorkspace('ipybox-traces-');
  t.after(() => ws.remove());
  const exporting = (service: string) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: service,
    OTEL_BSP_SCHEDULE_DELAY: '100',
  });
  const upstream = await runServerBin(
    t,
    FACTORY_BIN,
    ['--http', '0', '--health-port', '0', '-p', 'echo'],
    /serving MCP at (http:\S+)/,
    { cwd: ws.dir, env: { HOME: ws.dir, ...exporting('upstream') } },
  );
  assert.ok(upstream.match, `mcp-factory did not start:\n${upstream.stderr()}`);
  const box = await startStdioIpybox(ws.dir, {
    env: exporting('ipybox'),
    clientOptions: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  });
  t.after(() => box.close());
  const registered = (await box.client.callTool({
    name: 'register_mcp_server',
    arguments: { server_name: 'up', server_params: { url: upstream.match[1] } },
  })) as CallToolResult;
  assert.equal(registered.isError, undefined, textOf(registered));

  const caller = clientTraceparent();
  const cell = (await box.client.callTool(
    {
      name: 'execute_ipython_cell',
      arguments: { code: "from mcptools.up import echo\nprint(echo.run({'message': 'hop'}))" },
      _meta: { traceparent: caller.traceparent },
    },
    { timeout: 300_000 },
  )) as CallToolResult;
  assert.equal(cell.isError, undefined, textOf(cell));
  assert.match(textOf(cell), /^hop/);

  // Seven spans: five in ipybox, two in the upstream.
  const spans = (
    await receiver.waitFor((all) => all.filter((s) => s.traceId === caller.traceId).length >= 7)
  ).filter((s) => s.traceId === caller.traceId);
  const request = must(spans, { service: 'ipybox', name: 'tools/call execute_ipython_cell' });
  assert.equal(request.parentSpanId, caller.spanId);
  assert.equal(request.kind, SERVER);
  const tool = must(spans, { service: 'ipybox', name: 'execute_tool execute_ipython_cell' });
  assert.equal(tool.parentSpanId, request.spanId);
  const kernel = must(spans, { service: 'ipybox', name: 'ipybox.execute' });
  assert.equal(kernel.parentSpanId, tool.spanId);
  const toolServer = must(spans, { service: 'ipybox', name: 'ipybox.toolserver up.echo' });
  assert.equal(toolServer.parentSpanId, kernel.spanId, 'the kernel passed the cell’s context on');
  assert.equal(toolServer.kind, SERVER);
  const call = must(spans, { service: 'ipybox', name: 'tools/call echo', kind: CLIENT });
  assert.equal(call.parentSpanId, toolServer.spanId);
  const remote = must(spans, { service: 'upstream', name: 'tools/call echo', kind: SERVER });
  assert.equal(remote.parentSpanId, call.spanId);
  const remoteTool = must(spans, { service: 'upstream', name: 'execute_tool echo' });
  assert.equal(remoteTool.parentSpanId, remote.spanId);
});
