#!/usr/bin/env node
// Fails when a source file is over 400 lines: a longer file holds more than one concern (split it
// by concern) or data written as code (move the data to a data file with a loader). Biome checks
// the function length (complexity/noExcessiveLinesPerFunction); it has no rule for a file's.
// Tests and contract suites are left out: a suite is as long as the behaviour it pins down.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX_LINES = 400;
const source = /\.(ts|mjs|js)$/;
const testCode = /\.(test|contract)\.ts$/;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((f) => source.test(f) && !testCode.test(f) && !f.includes('/dist/'));

const long = files
  .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
  .filter(({ lines }) => lines > MAX_LINES);

for (const { file, lines } of long) {
  console.error(`${file}: ${lines} lines; at most ${MAX_LINES} (split it by concern)`);
}
process.exit(long.length === 0 ? 0 : 1);
