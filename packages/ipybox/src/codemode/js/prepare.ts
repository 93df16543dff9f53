/**
 * The caller's TypeScript or JavaScript made into what the isolate runs: transpiled
 * (`types/transpile.ts`, esbuild — types removed, syntax errors with line and column of the
 * caller's code), then wrapped in an async function so top-level `await` works, its last
 * expression statement returned as the execution's value.
 *
 * Finding that statement takes a parser: acorn's, small enough that the first execution does
 * not wait for it (`typescript`'s, needed only for `check: true`, takes a second to load).
 * `position` maps a place in the script run (a runtime error's frame) back to the caller's
 * code, through the wrapper and the source map.
 *
 * @module
 */
import { type Node, type Options, type Program, parse } from 'acorn';
import type { Position } from './types/index.ts';
import { transpile } from './types/index.ts';

export type ScriptLanguage = 'typescript' | 'javascript';

/** Code that does not parse or cannot run here: each problem with its line and column. */
export class ScriptSyntaxError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'SyntaxError';
  }
}

export interface PreparedScript {
  /** `__run(async () => { ... })` for `runInIsolate`. */
  script: string;
  /** The caller's line and column of a 1-based position in `script`. */
  position(line: number, column: number): Position | undefined;
}

const PREFIX = '__run(async () => {';
const RETURN = 'return (';

/** Loads what the first execution needs (esbuild's service) ahead of it. */
export async function warmUp(): Promise<void> {
  transpile('0');
}

const MODULE_SYNTAX = new Set([
  'ImportDeclaration',
  'ExportNamedDeclaration',
  'ExportDefaultDeclaration',
  'ExportAllDeclaration',
]);

/**
 * The transpiled code's syntax tree. Read as a module first, so `import`/`export` are found
 * and refused below; as a script when only a module's strictness rejects it (`with`, say).
 */
function syntaxTree(js: string): Program {
  const options: Options = { ecmaVersion: 'latest', locations: true };
  try {
    return parse(js, { ...options, sourceType: 'module' });
  } catch {
    const anywhere = { allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true };
    return parse(js, { ...options, ...anywhere, sourceType: 'script' });
  }
}

/** The script for `runInIsolate`; throws `ScriptSyntaxError`. */
export async function prepareScript(
  code: string,
  language: ScriptLanguage,
): Promise<PreparedScript> {
  const file = language === 'typescript' ? 'code.ts' : 'code.js';
  const out = transpile(code);
  if (!out.ok) {
    throw new ScriptSyntaxError([`${file}:${out.line}:${out.column}: ${out.message}`]);
  }
  const js = out.js;
  let program: Program;
  try {
    program = syntaxTree(js);
  } catch (error) {
    // esbuild accepted it, so this is the isolate's limit rather than the caller's typo.
    throw new ScriptSyntaxError([`${file}: ${(error as Error).message}`]);
  }
  const at = (node: Node) => {
    const { line, column } = node.loc?.start ?? { line: 1, column: 0 };
    return out.originalPosition(line, column + 1) ?? { line, column: column + 1 };
  };
  const moduleSyntax = program.body.find((s) => MODULE_SYNTAX.has(s.type));
  if (moduleSyntax) {
    const { line, column } = at(moduleSyntax);
    throw new ScriptSyntaxError([
      `${file}:${line}:${column}: import and export are not available: the code runs in an ` +
        'isolate without modules; call tools through `tools.<plugin>.<tool>(args)`',
    ]);
  }
  const last = program.body.at(-1);
  let body = js;
  /** Where `return (` went in (1-based line of `js`, column), shifting that line. */
  let inserted: { line: number; column: number } | undefined;
  if (last?.type === 'ExpressionStatement' && last.loc) {
    inserted = { line: last.loc.start.line, column: last.loc.start.column + 1 };
    const expression = js.slice(last.expression.start, last.expression.end);
    body = `${js.slice(0, last.start)}${RETURN}${expression});${js.slice(last.end)}`;
  }
  return {
    script: `${PREFIX}${body}\n});`,
    position: (line, column) => {
      let jsColumn = line === 1 ? column - PREFIX.length : column;
      if (inserted && line === inserted.line && jsColumn > inserted.column) {
        jsColumn -= RETURN.length;
      }
      return out.originalPosition(line, Math.max(1, jsColumn));
    },
  };
}
