// Requests sent and matched without the SDK's Protocol (stdio upstreams): what callers get is
// what the SDK gave them — results, JSON-RPC errors, cancellation upstream, closed connections —
// and everything not ours still reaches the SDK. The real stdio upstreams in stdio.test.ts
// (2025) and era.test.ts (2026) run through this path too, with the client's real era hooks.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  type JSONRPCMessage,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  type StandardSchemaV1,
  type Transport,
} from '@modelcontextprotocol/client';
import { DirectRequests } from './directRequests.ts';
import { RequestDeadline } from './requestControl.ts';
import { loadClientSdk } from './sdk.ts';

/** A transport that records what is sent; the test plays the upstream. */
class FakeTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly sent: Array<Record<string, unknown>> = [];
  failSends = false;

  async start(): Promise<void> {}
  async close(): Promise<void> {
    this.onclose?.();
  }
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.failSends) throw new Error('stdin is closed');
    this.sent.push(message as Record<string, unknown>);
  }
  answer(message: Record<string, unknown>): void {
    this.onmessage?.({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  }
}

const anyObject: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) =>
      typeof (value as { bad?: unknown }).bad === 'undefined'
        ? { value: value as Record<string, unknown> }
        : { issues: [{ message: 'bad: not allowed' }] },
  },
};

/**
 * Stands in for a 2025 client's era hooks (no envelope; a `resultType` dropped), so that these
 * tests can play the upstream by hand. The real hooks of both eras are used against real
 * processes in stdio.test.ts and era.test.ts.
 */
const legacyEra = {
  requestEnvelope: (): Record<string, unknown> | undefined => undefined,
  decodeResult: (_method: string, raw: unknown) => {
    const { resultType: _dropped, ...result } = raw as Record<string, unknown>;
    return { kind: 'complete' as const, result };
  },
  inEra: () => true,
};

type Era = typeof legacyEra;

/** A transport with the SDK's handlers stood in for by recorders, and DirectRequests on top. */
function setUp(era: Era = legacyEra) {
  const transport = new FakeTransport();
  const toSdk: unknown[] = [];
  const closes: string[] = [];
  transport.onmessage = (message) => void toSdk.push(message);
  transport.onclose = () => void closes.push('sdk');
  const direct = new DirectRequests(transport, era, 'up');
  direct.attach();
  const deadline = (timeoutMs = 60_000, signal?: AbortSignal) =>
    new RequestDeadline(timeoutMs, signal);
  return { transport, toSdk, closes, direct, deadline };
}

const lastId = (transport: FakeTransport) => transport.sent.at(-1)?.id;

describe('DirectRequests', () => {
  before(() => loadClientSdk());

  test('sends with an id of its own and resolves with the answer, which the SDK never sees', async () => {
    const { transport, toSdk, direct, deadline } = setUp();
    const d = deadline();
    const call = direct.request('tools/call', { name: 'echo' }, anyObject, d);
    assert.deepEqual(transport.sent[0], {
      method: 'tools/call',
      params: { name: 'echo' },
      jsonrpc: '2.0',
      id: 'up:1',
    });
    transport.answer({ id: 'up:1', result: { content: [], resultType: 'complete', x: 1 } });
    // The 2025 codec drops a resultType; everything else is handed on as sent.
    assert.deepEqual(await call, { content: [], x: 1 });
    assert.deepEqual(toSdk, []);
    d.dispose();
  });

  test('a JSON-RPC error answer is the SDK ProtocolError, with code, message and data', async () => {
    const { transport, direct, deadline } = setUp();
    const call = direct.request('tools/call', { name: 'nope' }, anyObject, deadline());
    transport.answer({
      id: lastId(transport),
      error: { code: -32602, message: 'Tool nope not found', data: { tool: 'nope' } },
    });
    await assert.rejects(call, (error: unknown) => {
      assert.ok(error instanceof ProtocolError);
      assert.equal(error.code, -32602);
      assert.match(error.message, /Tool nope not found/);
      assert.deepEqual(error.data, { tool: 'nope' });
      return true;
    });
  });

  test('a result its schema refuses is an InvalidResult SdkError naming the method', async () => {
    const { transport, direct, deadline } = setUp();
    const call = direct.request('resources/list', {}, anyObject, deadline());
    transport.answer({ id: lastId(transport), result: { bad: 1 } });
    await assert.rejects(call, (error: unknown) => {
      assert.ok(error instanceof SdkError);
      assert.equal(error.code, SdkErrorCode.InvalidResult);
      assert.equal(error.message, 'Invalid result for resources/list: bad: not allowed');
      return true;
    });
  });

  test('an abort tells the upstream and rejects at once; a late answer goes on to the SDK', async () => {
    const { transport, toSdk, direct, deadline } = setUp();
    const caller = new AbortController();
    const d = deadline(60_000, caller.signal);
    const call = direct.request('tools/call', { name: 'sleep' }, anyObject, d);
    const id = lastId(transport);
    caller.abort('user pressed stop');
    await assert.rejects(call, (error: unknown) => {
      assert.ok(error instanceof SdkError);
      assert.equal(error.code, SdkErrorCode.RequestTimeout);
      assert.equal(error.message, 'user pressed stop');
      return true;
    });
    assert.deepEqual(transport.sent[1], {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'user pressed stop' },
    });
    transport.answer({ id, result: { content: [] } });
    assert.equal(toSdk.length, 1, 'nobody here waits for it any more');
    d.dispose();
  });

  test('a deadline that passes cancels the request like an abort', async () => {
    const { transport, direct, deadline } = setUp();
    const d = deadline(20);
    await assert.rejects(direct.request('tools/call', { name: 'sleep' }, anyObject, d), {
      message: 'timeout',
    });
    assert.equal(d.timedOut, true);
    assert.equal(transport.sent[1]?.method, 'notifications/cancelled');
  });

  test('an already aborted deadline sends nothing', async () => {
    const { transport, direct, deadline } = setUp();
    const caller = new AbortController();
    caller.abort('gone');
    await assert.rejects(
      direct.request('tools/call', { name: 'echo' }, anyObject, deadline(60_000, caller.signal)),
      { message: 'gone' },
    );
    assert.deepEqual(transport.sent, []);
  });

  test('a closed connection fails the waiting requests as the SDK does, after its own close', async () => {
    const { transport, closes, direct, deadline } = setUp();
    const calls = [1, 2].map(() => direct.request('tools/call', {}, anyObject, deadline()));
    await transport.close();
    for (const call of calls) {
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof SdkError);
        assert.equal(error.code, SdkErrorCode.ConnectionClosed);
        return true;
      });
    }
    assert.deepEqual(closes, ['sdk']);
  });

  test('a send that fails rejects the request with its error', async () => {
    const { transport, direct, deadline } = setUp();
    transport.failSends = true;
    await assert.rejects(direct.request('tools/call', {}, anyObject, deadline()), {
      message: 'stdin is closed',
    });
  });

  test("what is not an answer to one of ours reaches the SDK's handler unchanged", () => {
    const { transport, toSdk, direct, deadline } = setUp();
    void direct.request('tools/call', {}, anyObject, deadline()).catch(() => undefined);
    const others = [
      { id: 1, result: {} }, // the SDK's own numeric ids
      { id: 'up:99', result: {} }, // an id we never sent
      { id: 'up:1', method: 'elicitation/create', params: {} }, // a request from the upstream
      { method: 'notifications/message', params: { level: 'info', data: 'x' } },
    ];
    for (const message of others) transport.answer(message);
    assert.equal(toSdk.length, others.length);
  });

  test("a 2026 envelope goes on every request and cancellation; the caller's own _meta keys win", async () => {
    const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', shared: 'sdk' };
    const { transport, direct, deadline } = setUp({
      ...legacyEra,
      requestEnvelope: () => envelope,
    });
    const caller = new AbortController();
    const d = deadline(60_000, caller.signal);
    const call = direct.request(
      'tools/call',
      { name: 'sleep', _meta: { shared: 'caller', progressToken: 7 } },
      anyObject,
      d,
    );
    assert.deepEqual(transport.sent[0]?.params, {
      name: 'sleep',
      _meta: { ...envelope, shared: 'caller', progressToken: 7 },
    });
    caller.abort('stop');
    await assert.rejects(call, { message: 'stop' });
    assert.deepEqual(transport.sent[1]?.params, {
      requestId: 'up:1',
      reason: 'stop',
      _meta: envelope,
    });
    d.dispose();
  });

  test('input_required is handed back where the caller answers it, refused elsewhere', async () => {
    const { transport, direct, deadline } = setUp({
      ...legacyEra,
      decodeResult: (_method: string, raw: unknown) => {
        const { inputRequests, requestState } = raw as Record<string, never>;
        return { kind: 'input_required' as const, inputRequests, requestState } as never;
      },
    });
    const asking = { inputRequests: { ok: { method: 'elicitation/create' } }, requestState: 's1' };
    const interactive = direct.request('tools/call', {}, anyObject, deadline(), true);
    transport.answer({ id: lastId(transport), result: asking });
    assert.deepEqual(await interactive, { resultType: 'input_required', ...asking });

    const listing = direct.request('tools/list', {}, anyObject, deadline());
    transport.answer({ id: lastId(transport), result: asking });
    await assert.rejects(listing, (error: unknown) => {
      assert.ok(error instanceof SdkError);
      assert.equal(error.code, SdkErrorCode.UnsupportedResultType);
      assert.equal(error.message, "Unsupported result type 'input_required' for tools/list");
      return true;
    });
  });

  test('a result the codec refuses, or a codec that throws, fails that request only', async () => {
    const refusal = new SdkError(SdkErrorCode.InvalidResult, 'Invalid result for tools/call: x');
    const { transport, toSdk, direct, deadline } = setUp({
      ...legacyEra,
      decodeResult: (_method: string, raw: unknown) => {
        if ((raw as { boom?: true }).boom) throw new Error('codec broke');
        return { kind: 'invalid' as const, error: refusal } as never;
      },
    });
    const refused = direct.request('tools/call', {}, anyObject, deadline());
    transport.answer({ id: lastId(transport), result: {} });
    await assert.rejects(refused, (error) => error === refusal);
    const broken = direct.request('tools/call', {}, anyObject, deadline());
    transport.answer({ id: lastId(transport), result: { boom: true } });
    await assert.rejects(broken, { message: 'codec broke' });
    transport.answer({ method: 'notifications/message', params: { level: 'info', data: 'x' } });
    assert.equal(toSdk.length, 1, 'the connection goes on');
  });
});
