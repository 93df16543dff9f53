/**
 * TypeScript → JavaScript for the isolate: what the code means survives (top-level await, the
 * trailing expression, enums), a syntax error names the caller's line and column, and a
 * position in the emitted JavaScript maps back to the caller's code. The type check reports
 * against the caller's lines, with no DOM or Node globals and no imports.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { transpile } from './transpile.ts';
import { typeCheck } from './typeCheck.ts';

const AsyncFunction = (async () => {}).constructor as new (
  ...args: string[]
) => () => Promise<unknown>;

describe('transpile', () => {
  test('types go, meaning stays: top-level await, enums, the last expression', async () => {
    const code = [
      'interface Point { x: number }',
      'enum Color { Red, Green }',
      'const p: Point = { x: await Promise.resolve(2) };',
      'const c = Color.Green as number;',
      'p.x * 10 + c',
    ].join('\n');
    const result = transpile(code);
    assert.ok(result.ok);
    assert.doesNotMatch(result.js, /interface|: Point|as number/);
    assert.match(result.js, /await Promise\.resolve\(2\)/);
    assert.match(result.js, /p\.x \* 10 \+ c;\n$/);
    // Runs as the body of an async function (how a runtime runs top-level await code).
    const body = result.js.replace(/p\.x \* 10 \+ c;\n$/, 'return p.x * 10 + c;');
    assert.equal(await new AsyncFunction(body)(), 21);
  });

  test("a syntax error is at the caller's line and column (in characters)", () => {
    const result = transpile("const a = 1;\n\nconst é = 'ü'; let b: = 3;");
    assert.deepEqual(result, { ok: false, line: 3, column: 23, message: 'Unexpected "="' });
    const unclosed = transpile('function f() {\n  return 1;\n');
    assert.equal(unclosed.ok, false);
    assert.equal(!unclosed.ok && unclosed.line, 3);
  });

  test("a position in the JavaScript maps back to the caller's code", () => {
    const code = [
      '// notes',
      '',
      'type Id = string;',
      'const id: Id = "a";',
      '',
      '',
      'throw new Error(id as string);',
    ].join('\n');
    const result = transpile(code);
    assert.ok(result.ok);
    const lines = result.js.split('\n');
    const at = lines.findIndex((line) => line.startsWith('throw'));
    assert.ok(at < 6, result.js); // esbuild moved it: the map is needed
    const column = lines[at]!.indexOf('new') + 1;
    assert.deepEqual(result.originalPosition(at + 1, column), { line: 7, column: 7 });
    assert.equal(result.originalPosition(999, 1), undefined);
  });
});

describe('type check', () => {
  const declarations =
    'declare const tools: { echo: { echo(args: { message: string }): Promise<{ text: string }> } };';

  test('top-level await and a trailing expression are fine', async () => {
    const code = "const r = await tools.echo.echo({ message: 'hi' });\nr.text.length";
    assert.deepEqual(await typeCheck(code, declarations), []);
  });

  test('no DOM, no Node, no imports: each flagged where it is', async () => {
    const code = [
      "import { readFile } from 'node:fs';",
      'const env = process.env;',
      "document.title = 'x';",
      "const fs = require('fs');",
      'const ok: number[] = [1, 2].flatMap((n) => [n]);',
    ].join('\n');
    const found = await typeCheck(code, declarations);
    assert.deepEqual(
      found.map(({ line, column, code }) => [line, column, code]),
      [
        [1, 26, 2792],
        [2, 13, 2591],
        [3, 1, 2584],
        [4, 12, 2591],
      ],
    );
    assert.match(found[0]!.message, /Cannot find module 'node:fs'/);
  });

  test('a mistake on a line after a multi-line comment is at that line', async () => {
    const code = '/*\n  plan:\n  echo twice\n*/\nawait tools.echo.echo({ message: 42 });';
    const [found, ...rest] = await typeCheck(code, declarations);
    assert.deepEqual(rest, []);
    assert.deepEqual([found?.line, found?.column], [5, 25]);
    assert.match(found!.message, /Type 'number' is not assignable to type 'string'/);
  });
});
