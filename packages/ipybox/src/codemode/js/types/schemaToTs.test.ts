/**
 * The odd schemas, by hand: names that are not identifiers, enums and consts, unions, nullable,
 * local `$ref`s (recursive, to the root), additional and pattern properties, tuples, boolean
 * schemas, and garbage — each rendered, compiled and called as code would call it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CatalogToolInfo } from '@mcpbox/framework';
import type { Tool } from '@modelcontextprotocol/server';
import { toolCallPath, toolDeclarations, toolSignature } from './declarations.ts';
import { TsTypeContext } from './schemaToTs.ts';
import { typeCheck } from './typeCheck.ts';

const ODD: Tool = {
  name: 'search-items',
  description: 'Search with odd keys. A */ in a description stays a comment.',
  inputSchema: {
    type: 'object',
    properties: {
      class: { type: 'string' },
      'x-y': { type: 'integer', description: 'dashed', minimum: 0 },
      '': { type: 'string' },
      mode: { type: 'string', enum: ['fast', 'slow', "it's"], default: 'fast' },
      level: { enum: [1, 2, null] },
      op: { const: 'eq' },
      either: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
      maybe: { type: ['string', 'null'] },
      legacy: { type: 'string', nullable: true },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      headers: { type: 'object', patternProperties: { '^x-': { type: 'number' } } },
      pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false },
      tree: { $ref: '#/$defs/Node' },
      remote: { $ref: 'https://example.com/schema.json' },
      anything: true,
      nothing: false,
      both: {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { properties: { b: { type: 'number' } } },
        ],
      },
    },
    required: ['class', 'x-y'],
    $defs: {
      Node: {
        description: 'A node of the tree',
        type: 'object',
        properties: {
          value: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/$defs/Node' } },
        },
        required: ['value'],
      },
    },
  },
};

/** Schemas that are not schemas: the generator types them `unknown` and never throws. */
const GARBAGE: Tool[] = [
  {
    name: 'weird',
    inputSchema: { type: 42, properties: 'x', required: 'all', anyOf: 'no' } as never,
  },
  { name: 'deep', inputSchema: { type: 'object', properties: { d: nest(100) } } },
  { name: 'self', inputSchema: { type: 'object', properties: { next: { $ref: '#' } } } },
  {
    name: 'bad ref',
    inputSchema: { type: 'object', properties: { a: { $ref: '#/nowhere/at/all' } } },
  },
  {
    name: 'free',
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object', additionalProperties: true },
  },
];

function nest(depth: number): Record<string, never> {
  const schema =
    depth === 0 ? { type: 'string' } : { type: 'object', properties: { d: nest(depth - 1) } };
  return schema as never;
}

const VIEW: CatalogToolInfo[] = [
  { plugin: 'odd server', tool: ODD },
  ...GARBAGE.map((tool) => ({ plugin: 'garbage', tool })),
];

describe('schema to TypeScript', () => {
  const declarations = toolDeclarations(VIEW);

  test('odd names are quoted keys, called with brackets', () => {
    assert.equal(toolCallPath('odd server', 'search-items'), 'tools["odd server"]["search-items"]');
    assert.equal(toolCallPath('memory', 'read_graph'), 'tools.memory.read_graph');
    assert.match(declarations, /\n {2}"odd server": \{\n/);
    assert.match(declarations, /\n {4}"search-items"\(args: \{\n/);
    assert.match(declarations, /\n {6}class: string;\n/);
    assert.match(
      declarations,
      /\n {6}\/\*\*\n {7}\* dashed\n {7}\* \(minimum: 0\)\n {7}\*\/\n {6}"x-y": number;\n/,
    );
    assert.match(declarations, /\n {6}""\?: string;/);
    assert.match(declarations, /A \*\\\/ in a description/);
  });

  test('enums, consts, unions, nullable, maps, tuples, refs and booleans', () => {
    const lines = [
      `mode?: "fast" | "slow" | "it's";`,
      'level?: 1 | 2 | null;',
      'op?: "eq";',
      'either?: string | number;',
      'maybe?: string | null;',
      'legacy?: string | null;',
      'pair?: [string, number];',
      'tree?: OddServerSearchItemsNode;',
      'remote?: unknown;',
      'anything?: unknown;',
      'nothing?: never;',
    ];
    for (const line of lines) assert.ok(declarations.includes(`      ${line}\n`), line);
    assert.match(declarations, /labels\?: \{\n {8}\[key: string\]: string;\n {6}\};/);
    assert.match(declarations, /headers\?: \{\n {8}\[key: string\]: number;\n {6}\};/);
    assert.match(declarations, /\* @default "fast"/);
    assert.match(
      declarations,
      /\/\*\* A node of the tree \*\/\ntype OddServerSearchItemsNode = \{\n {2}value: string;\n {2}children\?: OddServerSearchItemsNode\[\];\n\};/,
    );
    assert.match(declarations, /\n {4}self\(args\?: \{\n {6}next\?: GarbageSelfRoot;/);
    assert.match(
      declarations,
      /\n {4}free\(args\?: \{\n {6}\[key: string\]: unknown;\n {4}\}\): Promise<\{\n {6}\[key: string\]: unknown;/,
    );
  });

  test('garbage schemas are typed unknown, and the whole file compiles', async () => {
    assert.match(
      declarations,
      /\n {4}weird\(args\?: \{\n {6}\[key: string\]: unknown;\n {4}\}\): Promise<ToolResult>;/,
    );
    assert.match(declarations, /\n {4}"bad ref"\(args\?: \{\n {6}a\?: unknown;/);
    assert.match(declarations, /d\?: unknown;/); // cut at the depth limit
    assert.deepEqual(await typeCheck(declarations, ''), []);
  });

  test('calls against the odd tool check as its schema says', async () => {
    const call = 'await tools["odd server"]["search-items"]';
    const good = [
      `${call}({ class: 'c', 'x-y': 1, mode: "it's", level: null, either: 2, pair: ['a', 1] });`,
      `${call}({ class: 'c', 'x-y': 1, tree: { value: 'root', children: [{ value: 'leaf' }] }, labels: { k: 'v' } });`,
      `${call}({ class: 'c', 'x-y': 1, both: { a: 'x', b: 2 } });`,
      "await tools.garbage.free({ any: 'thing' });",
      "await tools.garbage['bad ref']();",
    ].join('\n');
    assert.deepEqual(await typeCheck(good, declarations), []);
    const bad = [
      `${call}({ class: 'c', 'x-y': 1, mode: 'medium' });`,
      `${call}({ class: 'c' });`,
      `${call}({ class: 'c', 'x-y': 1, tree: { children: [] } });`,
    ].join('\n');
    const found = await typeCheck(bad, declarations);
    assert.deepEqual(
      found.map((d) => d.line),
      [1, 2, 3],
    );
    assert.match(found[1]!.message, /Property '"x-y"' is missing/);
    assert.match(found[2]!.message, /Property 'value' is missing/);
  });

  test('a search hit names its own aliases, not the file-wide ones', () => {
    const signature = toolSignature('odd server', ODD);
    assert.match(signature, /^\/\*\* A node of the tree \*\/\ntype Node = \{/);
    assert.match(
      signature,
      /\ntools\["odd server"\]\["search-items"\]\(args: \{\n {2}class: string;/,
    );
  });

  test('names of aliases never collide with each other or the globals', () => {
    const types = new TsTypeContext(['ToolResult']);
    assert.equal(types.reserveName('tool result'), 'ToolResult2');
    assert.equal(types.reserveName('string'), 'String2');
    assert.equal(types.reserveName('9 lives'), 'T9Lives');
    assert.equal(types.reserveName('--'), 'T');
  });
});
