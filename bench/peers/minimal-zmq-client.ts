/**
 * The floor for bench/kernel.ts: the least a Node program must do to run code in ipykernel over
 * ZeroMQ. Ports picked by listening on port 0 and closing (racy, fine for a benchmark), a Dealer
 * for shell, a Subscriber for iopub, HMAC-SHA256 signing, no verification, no heartbeat, no
 * queue, no timeouts, no error handling. It shares no code with packages/ipybox on purpose.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Dealer, Subscriber } from 'zeromq';

type Message = {
  header: { msg_id: string; msg_type: string };
  parent_header: { msg_id?: string };
  content: Record<string, unknown>;
};

// The same as test-utils' `freePort`, kept here: this floor imports nothing of the workspace's.
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface MinimalKernelOptions {
  /** Arguments after the interpreter, before `-f <file>`. Default: `-m ipykernel_launcher`. */
  launch?: string[];
  env: Record<string, string>;
}

export class MinimalKernel {
  readonly #child: ChildProcess;
  readonly #dir: string;
  readonly #key: string;
  readonly #shell = new Dealer({ linger: 0 });
  readonly #iopub = new Subscriber({ linger: 0 });
  readonly #session = randomUUID();
  /** zeromq allows one send in flight per socket. */
  #sending: Promise<void> = Promise.resolve();
  readonly #waiting = new Map<string, (message: Message, channel: 'shell' | 'iopub') => void>();

  private constructor(child: ChildProcess, dir: string, key: string, ports: number[]) {
    this.#child = child;
    this.#dir = dir;
    this.#key = key;
    this.#shell.connect(`tcp://127.0.0.1:${ports[0]}`);
    this.#iopub.connect(`tcp://127.0.0.1:${ports[1]}`);
    this.#iopub.subscribe();
    void this.#read(this.#shell, 'shell');
    void this.#read(this.#iopub, 'iopub');
  }

  static async start(options: MinimalKernelOptions): Promise<MinimalKernel> {
    const dir = mkdtempSync(join(tmpdir(), 'bench-minimal-'));
    const key = randomBytes(32).toString('hex');
    const ports = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const file = join(dir, 'connection.json');
    writeFileSync(
      file,
      JSON.stringify({
        transport: 'tcp',
        ip: '127.0.0.1',
        key,
        signature_scheme: 'hmac-sha256',
        shell_port: ports[0],
        iopub_port: ports[1],
        stdin_port: ports[2],
        control_port: ports[3],
        hb_port: ports[4],
      }),
    );
    const launch = options.launch ?? ['-m', 'ipykernel_launcher'];
    const child = spawn('/usr/bin/python3', [...launch, '-f', file], {
      // JPY_PARENT_PID: ipykernel exits when orphaned, should the benchmark die before stop().
      env: {
        ...options.env,
        IPYTHONDIR: join(dir, 'ipython'),
        JPY_PARENT_PID: String(process.pid),
      },
      stdio: 'ignore',
      detached: true,
    });
    const kernel = new MinimalKernel(child, dir, key, ports);
    await kernel.#ready();
    return kernel;
  }

  /** Runs code; resolves with stdout text and the bytes of any PNGs once reply and idle are in. */
  execute(code: string): Promise<{ text: string; pngs: Buffer[] }> {
    let text = '';
    const pngs: Buffer[] = [];
    return new Promise((resolve) => {
      let replied = false;
      let idle = false;
      const id = this.#send('execute_request', {
        code,
        silent: false,
        store_history: true,
        user_expressions: {},
        allow_stdin: false,
      });
      this.#waiting.set(id, (message, channel) => {
        const type = message.header.msg_type;
        if (channel === 'shell') replied = true;
        else if (type === 'stream') text += message.content.text;
        else if (type === 'display_data' || type === 'execute_result') {
          const data = message.content.data as Record<string, string>;
          if (data['image/png']) pngs.push(Buffer.from(data['image/png'], 'base64'));
          else text += data['text/plain'] ?? '';
        } else if (type === 'status' && message.content.execution_state === 'idle') idle = true;
        if (replied && idle) {
          this.#waiting.delete(id);
          resolve({ text, pngs });
        }
      });
    });
  }

  stop(): void {
    this.#shell.close();
    this.#iopub.close();
    try {
      process.kill(-this.#child.pid!, 'SIGKILL');
    } catch {}
    rmSync(this.#dir, { recursive: true, force: true });
  }

  /** Slow joiner: repeat kernel_info_request until its iopub idle comes through. */
  async #ready(): Promise<void> {
    await new Promise<void>((resolve) => {
      const ids: string[] = [];
      let timer: NodeJS.Timeout;
      const ask = () => {
        const id = this.#send('kernel_info_request', {});
        ids.push(id);
        this.#waiting.set(id, (message, channel) => {
          if (channel === 'iopub' && message.content.execution_state === 'idle') {
            clearTimeout(timer);
            for (const x of ids) this.#waiting.delete(x);
            resolve();
          }
        });
        timer = setTimeout(ask, 50);
      };
      ask();
    });
  }

  #send(type: string, content: object): string {
    const header = JSON.stringify({
      msg_id: randomUUID(),
      session: this.#session,
      username: 'bench',
      date: new Date().toISOString(),
      msg_type: type,
      version: '5.3',
    });
    const parts = [header, '{}', '{}', JSON.stringify(content)];
    const hmac = createHmac('sha256', this.#key);
    for (const part of parts) hmac.update(part);
    const frames = ['<IDS|MSG>', hmac.digest('hex'), ...parts];
    this.#sending = this.#sending.then(() => this.#shell.send(frames));
    return JSON.parse(header).msg_id;
  }

  async #read(socket: Dealer | Subscriber, channel: 'shell' | 'iopub'): Promise<void> {
    try {
      for await (const frames of socket) {
        const at = frames.findIndex((f) => f.toString() === '<IDS|MSG>');
        const message: Message = {
          header: JSON.parse(frames[at + 2].toString()),
          parent_header: JSON.parse(frames[at + 3].toString()),
          content: JSON.parse(frames[at + 5].toString()),
        };
        const parent = message.parent_header.msg_id;
        if (parent) this.#waiting.get(parent)?.(message, channel);
      }
    } catch {
      // closed
    }
  }
}
