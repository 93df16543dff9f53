// A host process that owns a kernel: prints `{"kernelPid": n}` once the kernel ran a cell, then
// idles until killed. Used to check that a kernel does not outlive a SIGKILLed parent.
import { KernelClient } from '../kernel/client.ts';

const client = new KernelClient();
await client.execute('1');
process.stdout.write(`${JSON.stringify({ kernelPid: client.pid })}\n`);
setInterval(() => {}, 60_000);
