/**
 * TypeScript → JavaScript for the isolate, with esbuild (fast, already the build's compiler):
 * types are removed, `enum`s and the like lowered, and nothing else changed in meaning —
 * no module format is imposed, so top-level `await` and a trailing expression statement (the
 * cell's result) survive as written. The code is transformed as given, never wrapped.
 *
 * esbuild reprints the code, so its lines are not the caller's: a syntax error is reported
 * against the caller's code directly, and `originalPosition` maps a position in the emitted
 * JavaScript (a runtime error's) back through the source map.
 *
 * Positions here are 1-based lines and 1-based columns (in characters).
 *
 * @module
 */
import { type Message, transformSync } from 'esbuild';

export interface Position {
  line: number;
  column: number;
}

export type TranspileResult =
  | {
      ok: true;
      js: string;
      /** Where a position of `js` came from in the caller's code (undefined: generated code). */
      originalPosition(line: number, column: number): Position | undefined;
    }
  | { ok: false; line: number; column: number; message: string };

/** The JavaScript the isolate runs (QuickJS: ES2023 less what esbuild lowers for ES2022). */
const TARGET = 'es2022';

/** Transpiles the caller's TypeScript; a syntax error comes back with its line and column. */
export function transpile(code: string): TranspileResult {
  try {
    const { code: js, map } = transformSync(code, {
      loader: 'ts',
      target: TARGET,
      sourcemap: 'external',
      sourcefile: 'code.ts',
    });
    const lines = decodeMappings((JSON.parse(map) as { mappings: string }).mappings);
    return { ok: true, js, originalPosition: (line, column) => lookup(lines, line, column) };
  } catch (error) {
    const first = (error as { errors?: Message[] }).errors?.[0];
    if (first === undefined) throw error;
    const location = first.location;
    return {
      ok: false,
      line: location?.line ?? 1,
      column: location ? characterColumn(location.lineText, location.column) + 1 : 1,
      message: first.text,
    };
  }
}

/** esbuild counts columns in UTF-8 bytes; the caller counts characters. */
function characterColumn(lineText: string, byteColumn: number): number {
  const bytes = Buffer.from(lineText, 'utf8').subarray(0, byteColumn);
  return bytes.toString('utf8').length;
}

/** Per generated line, its segments: [generated column, original line, original column] (0-based). */
type Segment = [number, number, number];

function lookup(lines: readonly Segment[][], line: number, column: number): Position | undefined {
  const segments = lines[line - 1];
  if (segments === undefined || segments.length === 0) return undefined;
  let found = segments[0]!;
  for (const segment of segments) {
    if (segment[0] > column - 1) break;
    found = segment;
  }
  return { line: found[1] + 1, column: found[2] + 1 };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes a source map's `mappings` (base64 VLQ; each field relative to the one before). */
function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let sourceLine = 0;
  let sourceColumn = 0;
  for (const text of mappings.split(';')) {
    const segments: Segment[] = [];
    let column = 0;
    for (const piece of text.split(',')) {
      if (piece === '') continue;
      const fields = decodeVlq(piece);
      column += fields[0] ?? 0;
      if (fields.length < 4) continue; // a segment mapped to no source
      sourceLine += fields[2]!;
      sourceColumn += fields[3]!;
      segments.push([column, sourceLine, sourceColumn]);
    }
    lines.push(segments);
  }
  return lines;
}

function decodeVlq(piece: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of piece) {
    const digit = BASE64.indexOf(char);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    values.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return values;
}
