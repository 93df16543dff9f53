import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonlToolLogger } from './toollog/jsonl.ts';
import { Redactor } from './toollog/redact.ts';
const dir = mkdtempSync(join(tmpdir(), 'logbench-'));
const logger = new JsonlToolLogger({ dir });
const N = 20000;
const red = Redactor.for(undefined);
for (let round = 0; round < 4; round++) {
  let t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) logger.logCall('echo', { message: `hello ${i}` }, { content: [{ type: 'text', text: `hello ${i}` }] }, true, { plugin: 'echo', durationMs: 0.1 });
  await logger.flush();
  let c = process.cpuUsage(t0);
  const all = (c.user + c.system) / N;
  t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) red.params('echo', { message: `hello ${i}` }, 500);
  c = process.cpuUsage(t0);
  const p = (c.user + c.system) / N;
  t0 = process.cpuUsage();
  for (let i = 0; i < N; i++) red.text(`hello ${i}`, 2000);
  c = process.cpuUsage(t0);
  console.log(`per call µs: logCall+flush ${all.toFixed(1)}  redact params ${p.toFixed(1)}  redact text ${((c.user + c.system) / N).toFixed(1)}`);
}
