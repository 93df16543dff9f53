/**
 * Type-checks the caller's TypeScript against the declarations of its tools (`execute_code`
 * with `check: true`), with the `typescript` compiler in memory: a virtual compiler host
 * serving the code, the declarations and the ES library files of the `typescript` package —
 * no DOM, no Node types, nothing read from the workspace, no import resolved.
 *
 * `typescript` is large, so it is loaded on the first check only; the parsed library files
 * are kept for every later check (they are the bulk of the work).
 *
 * The code is checked as a module (`moduleDetection: force`), so top-level `await` is allowed;
 * the declarations are a global script. Diagnostics are those of the caller's code only, with
 * 1-based lines and columns against it exactly as written.
 *
 * @module
 */
import { dirname, join } from 'node:path';
import type * as TS from 'typescript';

export interface Diagnostic {
  line: number;
  column: number;
  message: string;
  /** TypeScript's error code (`TS2345` is 2345). */
  code: number;
}

const CODE_FILE = '/code.ts';
const DECLARATIONS_FILE = '/tools.d.ts';

interface Checker {
  ts: typeof TS.default;
  options: TS.CompilerOptions;
  libDir: string;
  /** Parsed library files, kept across checks. */
  libs: Map<string, TS.SourceFile | undefined>;
  /** The declarations parsed last (the same text is checked again and again). */
  declarations?: { text: string; file: TS.SourceFile };
}

let checker: Promise<Checker> | undefined;

/** The diagnostics of `code` checked against `declarations` (`toolDeclarations`); [] if none. */
export async function typeCheck(code: string, declarations: string): Promise<Diagnostic[]> {
  checker ??= load();
  const loaded = await checker;
  const { ts } = loaded;
  const program = ts.createProgram({
    rootNames: [CODE_FILE, DECLARATIONS_FILE],
    options: loaded.options,
    host: compilerHost(loaded, code, declarationsFile(loaded, declarations)),
  });
  const codeFile = program.getSourceFile(CODE_FILE)!;
  const found = [
    ...program.getSyntacticDiagnostics(codeFile),
    ...program.getSemanticDiagnostics(codeFile),
  ];
  return found.map((diagnostic) => {
    const start = diagnostic.start ?? 0;
    const { line, character } = codeFile.getLineAndCharacterOfPosition(start);
    return {
      line: line + 1,
      column: character + 1,
      message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      code: diagnostic.code,
    };
  });
}

async function load(): Promise<Checker> {
  const ts = (await import('typescript')).default;
  const libDir = dirname(ts.getDefaultLibFilePath({}));
  const options: TS.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ['lib.es2022.d.ts'],
    types: [],
    strict: true,
    // `catch (e) { e.message }` is how most code is written; checking it adds noise, no safety.
    useUnknownInCatchVariables: false,
    noEmit: true,
    noResolve: true,
    skipLibCheck: true,
  };
  return { ts, options, libDir, libs: new Map() };
}

function declarationsFile(loaded: Checker, text: string): TS.SourceFile {
  if (loaded.declarations?.text !== text) {
    const file = loaded.ts.createSourceFile(
      DECLARATIONS_FILE,
      text,
      loaded.ts.ScriptTarget.ES2022,
      true,
    );
    loaded.declarations = { text, file };
  }
  return loaded.declarations.file;
}

function compilerHost(loaded: Checker, code: string, declarations: TS.SourceFile): TS.CompilerHost {
  const { ts, libDir, libs } = loaded;
  const libFile = (fileName: string): TS.SourceFile | undefined => {
    if (!libs.has(fileName)) {
      const text = ts.sys.readFile(fileName);
      libs.set(
        fileName,
        text === undefined
          ? undefined
          : ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true),
      );
    }
    return libs.get(fileName);
  };
  const isLib = (fileName: string) =>
    dirname(fileName) === libDir && /^lib\.[\w.]*d\.ts$/.test(fileName.slice(libDir.length + 1));
  const read = (fileName: string): string | undefined =>
    fileName === CODE_FILE
      ? code
      : fileName === DECLARATIONS_FILE
        ? declarations.text
        : isLib(fileName)
          ? libFile(fileName)?.text
          : undefined;
  return {
    // The options TypeScript passes say how to tell a module (`moduleDetection: force`).
    getSourceFile: (fileName, languageVersionOrOptions) =>
      fileName === CODE_FILE
        ? ts.createSourceFile(CODE_FILE, code, languageVersionOrOptions, true)
        : fileName === DECLARATIONS_FILE
          ? declarations
          : isLib(fileName)
            ? libFile(fileName)
            : undefined,
    getDefaultLibFileName: () => join(libDir, 'lib.es2022.d.ts'),
    getDefaultLibLocation: () => libDir,
    writeFile: () => {},
    getCurrentDirectory: () => '/',
    getDirectories: () => [],
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => read(fileName) !== undefined,
    readFile: read,
  };
}
