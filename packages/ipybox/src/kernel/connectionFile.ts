/**
 * Jupyter connection files: the transport, address, ports and HMAC key a kernel and its clients
 * share. The launcher writes one with every port 0 so ipykernel binds free ports itself (no race
 * between picking a port and binding it) and reports them back.
 *
 * @see https://jupyter-client.readthedocs.io/en/stable/kernels.html#connection-files
 * @module
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';

/** `tcp` on loopback, or `ipc` (Unix sockets) — the only way into a kernel without a network. */
export type KernelTransport = 'tcp' | 'ipc';

export type SocketChannel = 'shell' | 'iopub' | 'stdin' | 'control' | 'hb';

export interface ConnectionInfo {
  transport: KernelTransport;
  /** An IP address for `tcp`; a socket path prefix for `ipc` (sockets are `<ip>-<port>`). */
  ip: string;
  key: string;
  signature_scheme: 'hmac-sha256';
  shell_port: number;
  iopub_port: number;
  stdin_port: number;
  control_port: number;
  hb_port: number;
}

/** A fresh connection description: random 256-bit key, every port left for the kernel to choose. */
export function newConnectionInfo(transport: KernelTransport, ip: string): ConnectionInfo {
  return {
    transport,
    ip,
    key: randomBytes(32).toString('hex'),
    signature_scheme: 'hmac-sha256',
    shell_port: 0,
    iopub_port: 0,
    stdin_port: 0,
    control_port: 0,
    hb_port: 0,
  };
}

/** The ZeroMQ endpoint of one channel, e.g. `tcp://127.0.0.1:5555` or `ipc:///dir/kernel-2`. */
export function channelAddress(info: ConnectionInfo, channel: SocketChannel): string {
  const port = info[`${channel}_port`];
  return info.transport === 'tcp' ? `tcp://${info.ip}:${port}` : `ipc://${info.ip}-${port}`;
}

/** Writes the file readable by its owner only: it holds the signing key. */
export async function writeConnectionFile(path: string, info: ConnectionInfo): Promise<void> {
  await writeFile(path, JSON.stringify(info, null, 2), { mode: 0o600 });
}
