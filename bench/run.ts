/**
 * `npm run bench`: runs every benchmark file in bench/ (not this one, not bench/peers/) one
 * after another, each in its own process, and fails if any of them fails.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.test.ts'))
  .filter((f) => only.length === 0 || only.some((name) => f.includes(name)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n=== bench/${file} ===`);
  // The benchmarks import workspace packages' sources (and their `testing` entries) by the
  // `mcpbox-source` condition; the servers they start run the built bins.
  const args = ['--conditions=mcpbox-source', '--import', 'tsx', `bench/${file}`];
  const result = spawnSync(process.execPath, args, {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    console.error(`bench/${file} failed (exit ${result.status ?? result.signal})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
