/**
 * The behaviour every `KernelBackend` owes `KernelClient`, as one suite each backend's test runs
 * against a real kernel: `runKernelBackendContract('zeromq', () => zmqKernelBackend())`.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KernelClient } from '../client.ts';
import { CodeExecutionError } from '../errors.ts';
import type { KernelBackend } from './backend.ts';

export function runKernelBackendContract(name: string, makeBackend: () => Promise<KernelBackend>) {
  describe(`KernelBackend contract: ${name}`, () => {
    let dir: string;
    let client: KernelClient;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'mcpbox-contract-'));
      client = new KernelClient({ backend: await makeBackend(), imagesDir: dir });
      await client.start();
    });
    after(async () => {
      await client?.close();
      await rm(dir, { recursive: true, force: true });
    });

    it('keeps state and returns streams, values and figures', async () => {
      await client.execute('import matplotlib.pyplot as plt\nvalue = 6');
      const result = await client.execute('print("out")\nplt.plot([1, 2])\nplt.show()\nvalue * 7');
      assert.equal(result.text, 'out\n42');
      assert.equal(result.images.length, 1);
      assert.equal(result.images[0].mimeType, 'image/png');
    });

    it('streams chunks in order', async () => {
      // A flushed print reaches the client as a message of its own, but the kernel may send a
      // line in pieces ('1', then '\n'), so a line's pieces are joined before comparing.
      const seen: string[] = [];
      let open = false;
      let chunks = 0;
      for await (const item of client.stream('print(1, flush=True)\nprint(2, flush=True)\n3')) {
        if (item.kind !== 'stream') seen.push(item.kind);
        else if (open) seen[seen.length - 1] += item.text;
        else seen.push(item.text);
        open = item.kind === 'stream' && !seen[seen.length - 1].endsWith('\n');
        if (item.kind === 'stream') chunks++;
      }
      assert.deepEqual(seen, ['1\n', '2\n', 'execute_result', 'result']);
      assert.ok(chunks >= 2, 'each flushed print arrives as a chunk of its own');
    });

    it('raises exceptions from the code', async () => {
      await assert.rejects(client.execute('raise KeyError("k")'), (error) => {
        assert.ok(error instanceof CodeExecutionError);
        assert.equal(error.ename, 'KeyError');
        return true;
      });
    });

    it('interrupts a cell at its timeout and stays usable', async () => {
      await assert.rejects(client.execute('import time\ntime.sleep(60)', { timeout: 300 }), {
        code: 'EXECUTION_TIMEOUT',
      });
      assert.equal((await client.execute('value')).text, '6');
    });

    it('resets to a fresh kernel', async () => {
      await client.reset();
      assert.equal((await client.execute('"value" in globals()')).text, 'False');
    });
  });
}
