/**
 * The floor under a tool call from kernel code: the same three processes as ipybox's path
 * (kernel → a relay → the upstream), with nothing in the middle but the hop. It listens on a Unix
 * socket for the one request the generated runtime sends (`POST /run`, a `Content-Length` body
 * `{server_name, tool_name, tool_args}`, parsed by hand), calls the tool with an SDK v2 `Client`
 * over stdio (the client bench/ipybox.ts's direct baseline uses) and answers
 * `{"result": structured content or text}`. No token, approval, privilege check, timeout,
 * cancellation or tracing: what any tool server pays at least for the hop, which
 * bench/ipybox.ts sets beside ipybox's tool server.
 *
 * Usage: `kernel-relay.ts <socket path> <legacy|modern> <upstream command> [args...]`; prints
 * `relay listening` on stdout once it accepts calls, and ends when stdin closes.
 */
import { createServer, type Socket } from 'node:net';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { benchClient } from '../lib/measure.ts';

const [socketPath, era, command, ...args] = process.argv.slice(2);
if (!socketPath || (era !== 'legacy' && era !== 'modern') || !command) {
  process.stderr.write('usage: kernel-relay.ts <socket> <legacy|modern> <command> [args...]\n');
  process.exit(2);
}
const upstream = benchClient(era);
await upstream.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));

const HEAD_END = '\r\n\r\n';

/** What kernel code receives: the structured content, else the text (as ipybox answers). */
function value(result: CallToolResult): unknown {
  return (
    result.structuredContent ??
    result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n')
  );
}

/** Answers each request on `socket` in turn, as its bytes complete. */
function serve(socket: Socket): void {
  let pending: Buffer = Buffer.alloc(0);
  let busy = false;
  const next = async () => {
    if (busy) return;
    const end = pending.indexOf(HEAD_END);
    if (end === -1) return;
    const length = Number(/content-length: *(\d+)/i.exec(pending.toString('latin1', 0, end))?.[1]);
    const start = end + HEAD_END.length;
    if (pending.length < start + length) return;
    const call = JSON.parse(pending.toString('utf8', start, start + length));
    pending = pending.subarray(start + length);
    busy = true;
    const result = (await upstream.callTool({
      name: call.tool_name,
      arguments: call.tool_args,
    })) as CallToolResult;
    const body = JSON.stringify({ result: value(result) });
    socket.write(
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    busy = false;
    void next();
  };
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    void next();
  });
  socket.on('error', () => socket.destroy());
}

const server = createServer(serve);
server.listen(socketPath, () => process.stdout.write('relay listening\n'));

// The benchmark closing stdin ends the relay, and the upstream with it.
process.stdin.once('end', async () => {
  server.close();
  await upstream.close();
  process.exit(0);
});
process.stdin.resume();
