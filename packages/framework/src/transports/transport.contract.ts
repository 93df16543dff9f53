/**
 * The behaviour every transport must show, as one suite each transport's test runs with its
 * own way of connecting a real SDK client to a server that has the `kitchen` fixture loaded.
 *
 * @module
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstText } from '@mcpbox/test-utils';
import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';

/** Connects a fresh client; the suite closes it. Set up and tear down the server around it. */
export type ConnectClient = () => Promise<Client>;

export interface ContractOptions {
  /**
   * Whether the server can send requests to the client mid-call (ping, sampling, elicitation).
   * Stateless HTTP cannot: the client's answer arrives at a new, different server. Default true.
   */
  serverRequests?: boolean;
}

export function runTransportContract(
  label: string,
  connect: ConnectClient,
  { serverRequests = true }: ContractOptions = {},
): void {
  test(`${label}: lists and calls tools, with text and structured results`, async (t) => {
    const client = await connect();
    t.after(() => client.close());
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === 'echo'));
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'm' } })),
      'm',
    );
    const added = await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
    assert.deepEqual(added.structuredContent, { sum: 3 });
  });

  test(`${label}: failures are data and the connection stays usable`, async (t) => {
    const client = await connect();
    t.after(() => client.close());
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    assert.equal(failed.isError, true);
    assert.equal(firstText(failed), 'the disk is on fire');
    await assert.rejects(
      client.callTool({ name: 'missing', arguments: {} }),
      (error) => error instanceof ProtocolError && error.code === ProtocolErrorCode.InvalidParams,
    );
    const invalid = await client.callTool({ name: 'echo', arguments: {} });
    assert.equal(invalid.isError, true);
    assert.match(firstText(invalid), /message/);
    assert.equal(
      firstText(await client.callTool({ name: 'echo', arguments: { message: 'ok' } })),
      'ok',
    );
  });

  test(`${label}: resources, templates and prompts`, async (t) => {
    const client = await connect();
    t.after(() => client.close());
    const readme = await client.readResource({ uri: 'kitchen://readme' });
    assert.deepEqual(readme.contents, [{ uri: 'kitchen://readme', text: 'kitchen readme' }]);
    const red = await client.readResource({ uri: 'kitchen://colours/red' });
    assert.deepEqual(red.contents, [{ uri: 'kitchen://colours/red', text: 'colour red' }]);
    const prompt = await client.getPrompt({ name: 'paint', arguments: { colour: 'blue' } });
    assert.deepEqual(prompt.messages[0].content, { type: 'text', text: 'Paint the wall blue' });
  });

  test(`${label}: progress notifications arrive during the call`, async (t) => {
    const client = await connect();
    t.after(() => client.close());
    const seen: number[] = [];
    const result = await client.callTool(
      { name: 'count', arguments: { to: 3, roundTrip: serverRequests } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    assert.equal(firstText(result), 'counted to 3');
    if (serverRequests) {
      assert.deepEqual(seen, [1, 2, 3]);
    } else {
      // Without a round trip per step, the SDK client may drop notifications that share a read
      // chunk with the response (see the `count` fixture); those that arrive are in order.
      assert.deepEqual(seen, [1, 2, 3].slice(0, seen.length));
    }
  });
}
