/**
 * The caller's TypeScript or JavaScript made into what the isolate runs: types stripped
 * (`typescript`'s `transpileModule`, which also finds syntax errors — reported with line and
 * column of the caller's code), then wrapped in an async function so top-level `await` works,
 * its last expression statement returned as the execution's value.
 *
 * The wrapper opens on the code's first line, so line numbers of runtime errors in JavaScript
 * are the caller's (TypeScript's are those of the code after its types were removed).
 *
 * @module
 */
import ts from 'typescript';

export type ScriptLanguage = 'typescript' | 'javascript';

/** Code that does not parse: each problem with its 1-based line and column. */
export class ScriptSyntaxError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'SyntaxError';
  }
}

/** The script for `runInIsolate`; throws `ScriptSyntaxError`. */
export function prepareScript(code: string, language: ScriptLanguage): string {
  const fileName = language === 'typescript' ? 'code.ts' : 'code.js';
  const { outputText, diagnostics = [] } = ts.transpileModule(code, {
    fileName,
    reportDiagnostics: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      allowJs: true,
      // No helpers or `export {}` lines added: the isolate runs the statements as they are.
      isolatedModules: false,
      removeComments: false,
    },
  });
  if (diagnostics.length > 0) {
    const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.ES2022);
    throw new ScriptSyntaxError(
      diagnostics.map((d) => {
        const { line, character } = source.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${fileName}:${line + 1}:${character + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      }),
    );
  }
  return wrap(outputText);
}

/** `__run(async () => { ...; return (last); })` — the value of the last expression statement. */
function wrap(js: string): string {
  const source = ts.createSourceFile('code.js', js, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const statements = source.statements;
  const moduleSyntax = statements.find(
    (s) => ts.isImportDeclaration(s) || ts.isExportDeclaration(s) || ts.isExportAssignment(s),
  );
  if (moduleSyntax) {
    const { line, character } = source.getLineAndCharacterOfPosition(moduleSyntax.getStart());
    throw new ScriptSyntaxError([
      `code.js:${line + 1}:${character + 1}: import and export are not available: the code ` +
        'runs in an isolate without modules; call tools through `tools.<server>.<tool>(args)`',
    ]);
  }
  const last = statements.at(-1);
  let body = js;
  if (last && ts.isExpressionStatement(last)) {
    const expression = last.expression;
    body = `${js.slice(0, last.getStart())}return (${js.slice(expression.getStart(), expression.end)});${js.slice(last.end)}`;
  }
  return `__run(async () => {${body}\n});`;
}
