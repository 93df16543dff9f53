/**
 * The kernel side of bench/ipybox.ts's tool-call rows: the bare relay process beside ipybox's
 * tool server (bench/peers/kernel-relay.ts), and the Python that times calls from a cell through
 * either of them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Era } from '@mcpbox/framework';

const KERNEL_RELAY = fileURLToPath(new URL('../peers/kernel-relay.ts', import.meta.url));

/** An upstream tool and how to start its server (`register_mcp_server`'s `server_params`). */
export interface Upstream {
  params: { command: string; args?: string[]; cwd?: string };
  tool: string;
  args: Record<string, unknown>;
}

/** Starts the relay on `socket` in front of `upstream` (its own copy), speaking `era`. */
export async function startKernelRelay(
  era: Era,
  upstream: Upstream,
  socket: string,
): Promise<ChildProcess> {
  const { command, args = [], cwd } = upstream.params;
  const relay = spawn(
    process.execPath,
    ['--import', 'tsx', KERNEL_RELAY, socket, era, command, ...args],
    { cwd, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  await once(relay.stdout, 'data'); // "relay listening"
  return relay;
}

/**
 * Python defining `_bench(n, run=_tool.run)` (the ms of `n` calls, as JSON) and `_relay_run`,
 * the same call through the relay at `relaySocket`. The upstream is registered as `up`.
 */
export function timingCell(upstream: Upstream, relaySocket: string): string {
  return [
    'import json, time',
    `from mcptools.up import ${upstream.tool} as _tool`,
    `_args = json.loads(${JSON.stringify(JSON.stringify(upstream.args))})`,
    '_tool.run(_args)',
    // The relay's call does what `call_tool` does: encode, POST /run, decode the reply.
    'from mcptools import _runtime',
    `_relay = _runtime._Connection(${JSON.stringify(`unix:${relaySocket}`)})`,
    'def _relay_run(args):',
    `    body = json.dumps({"server_name": "up", "tool_name": ${JSON.stringify(upstream.tool)}, "tool_args": args}, ensure_ascii=False, allow_nan=False).encode("utf-8")`,
    '    status, raw, _ = _relay.exchange(body, {"Content-Type": "application/json"})',
    '    return _runtime._reply_of(status, raw)["result"]',
    'def _bench(n, run=_tool.run):',
    '    out = []',
    '    for i in range(n):',
    '        t = time.perf_counter()',
    '        run(_args)',
    '        out.append((time.perf_counter() - t) * 1000)',
    '    return json.dumps(out)',
    'assert _relay_run(_args) == _tool.run(_args)',
  ].join('\n');
}
