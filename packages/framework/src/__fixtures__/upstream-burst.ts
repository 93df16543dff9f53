/**
 * A raw newline-delimited JSON-RPC stdio MCP server (no SDK) with one tool, `burst`, which
 * answers with three progress notifications and the result in ONE write — the arrival pattern
 * that makes SDK clients drop the last progress step when they dispatch notifications late.
 */
import { createInterface } from 'node:readline';

const send = (...messages: unknown[]) =>
  process.stdout.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return; // notifications need no answer
  const reply = (result: unknown) => ({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize':
      send(
        reply({
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'upstream-burst', version: '1.0.0' },
        }),
      );
      break;
    case 'tools/list':
      send(reply({ tools: [{ name: 'burst', inputSchema: { type: 'object' } }] }));
      break;
    case 'tools/call': {
      const token = message.params._meta?.progressToken;
      const progress = [1, 2, 3].map((step) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: token, progress: step, total: 3 },
      }));
      send(
        ...(token === undefined ? [] : progress),
        reply({ content: [{ type: 'text', text: 'done' }] }),
      );
      break;
    }
    default:
      send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      });
  }
});
