/**
 * The caller's TypeScript or JavaScript made into what the isolate runs: transpiled
 * (`types/transpile.ts`, esbuild — types removed, syntax errors with line and column of the
 * caller's code), then wrapped in an async function so top-level `await` works, its last
 * expression statement returned as the execution's value.
 *
 * Finding that statement takes a parser: `typescript`'s (a dependency for the type check
 * already), loaded on the first execution only. `position` maps a place in the script run (a
 * runtime error's frame) back to the caller's code, through the wrapper and the source map.
 *
 * @module
 */
import type * as TS from 'typescript';
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

let parser: Promise<typeof TS.default> | undefined;

/** `typescript`, imported once (it is large: the first execution pays for it). */
function typescript(): Promise<typeof TS.default> {
  parser ??= import('typescript').then((ts) => ts.default);
  return parser;
}

/**
 * Loads what the first execution needs (the parser, esbuild's service) ahead of it: a server
 * offering TypeScript calls this at start, so no caller's first call waits a second for it.
 */
export async function warmUp(): Promise<void> {
  await typescript();
  transpile('0');
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
  const ts = await typescript();
  const js = out.js;
  const source = ts.createSourceFile('code.js', js, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const at = (node: TS.Node) => {
    const { line, character } = source.getLineAndCharacterOfPosition(node.getStart());
    return (
      out.originalPosition(line + 1, character + 1) ?? { line: line + 1, column: character + 1 }
    );
  };
  const moduleSyntax = source.statements.find(
    (s) => ts.isImportDeclaration(s) || ts.isExportDeclaration(s) || ts.isExportAssignment(s),
  );
  if (moduleSyntax) {
    const { line, column } = at(moduleSyntax);
    throw new ScriptSyntaxError([
      `${file}:${line}:${column}: import and export are not available: the code runs in an ` +
        'isolate without modules; call tools through `tools.<plugin>.<tool>(args)`',
    ]);
  }
  const last = source.statements.at(-1);
  let body = js;
  /** Where `return (` went in (1-based line of `js`, column), shifting that line. */
  let inserted: { line: number; column: number } | undefined;
  if (last && ts.isExpressionStatement(last)) {
    const start = last.getStart();
    const { line, character } = source.getLineAndCharacterOfPosition(start);
    inserted = { line: line + 1, column: character + 1 };
    const expression = js.slice(last.expression.getStart(), last.expression.end);
    body = `${js.slice(0, start)}${RETURN}${expression});${js.slice(last.end)}`;
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
