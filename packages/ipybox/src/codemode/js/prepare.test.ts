/**
 * The caller's code as the isolate runs it: the last expression statement becomes the value,
 * module syntax is refused at the caller's line, and what only a script allows still runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prepareScript, ScriptSyntaxError } from './prepare.ts';

test('the last expression is returned; code only a script allows is kept as a script', async () => {
  const typed = await prepareScript('const a: number = await f();\n\na + 1', 'typescript');
  assert.match(typed.script, /return \(a \+ 1\);\n+\}\);$/);
  const early = await prepareScript('if (ok) return 1;\n2', 'javascript');
  assert.match(early.script, /return 1;[\s\S]*return \(2\);/);
  const sloppy = await prepareScript('with (o) { x; }\nx', 'javascript');
  assert.match(sloppy.script, /with \(o\)/);
  const statement = await prepareScript('let z = 1;', 'javascript');
  assert.doesNotMatch(statement.script, /return \(/);
});

// The column is where the source map puts the declaration: esbuild maps `export` to what it exports.
test('import and export are refused at the caller’s line', async () => {
  const code = "const a: string = 'x';\n\n  export const b = a;";
  await assert.rejects(prepareScript(code, 'typescript'), (error: unknown) => {
    assert.ok(error instanceof ScriptSyntaxError);
    assert.match(error.message, /^code\.ts:3:\d+: import and export are not available/);
    return true;
  });
  await assert.rejects(prepareScript('let = ;', 'javascript'), /^SyntaxError: code\.js:1:/);
});
