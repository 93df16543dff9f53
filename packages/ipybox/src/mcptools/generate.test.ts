import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pythonJson, runPython } from '../__fixtures__/toolserver-python.ts';
import { generateMcpSources } from './generate.ts';
import type { ToolDefinition } from './renderPackage.ts';

/** Tools shaped like real servers' schemas, with the awkward cases on purpose. */
const TOOLS: ToolDefinition[] = [
  {
    name: 'echo',
    description: 'Echoes back the input',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
      required: ['message'],
    },
  },
  {
    name: 'search-items',
    description: 'Search with odd keys',
    inputSchema: {
      type: 'object',
      properties: {
        class: { type: 'string' },
        'x-y': { type: 'integer' },
        import: { type: 'boolean' },
        'with space': { type: 'number' },
        'quo\'te"s': { type: 'string' },
        '': { type: 'string' },
        mode: { type: 'string', enum: ['fast', 'slow', "it's"] },
        level: { enum: [1, 2, null] },
        tags: { type: 'array', items: { type: 'string' } },
        filter: {
          type: 'object',
          properties: {
            field: { type: 'string' },
            op: { const: 'eq' },
            range: {
              type: 'object',
              properties: { min: { type: 'number' }, max: { type: 'number' } },
              required: ['min'],
            },
          },
          required: ['field'],
        },
        either: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        maybe: { type: ['string', 'null'] },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        tree: { $ref: '#/$defs/Node' },
      },
      required: ['class', 'x-y'],
      $defs: {
        Node: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Node' } },
          },
          required: ['name'],
        },
      },
    },
  },
  {
    name: 'get-weather',
    title: 'Weather',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    outputSchema: {
      type: 'object',
      properties: { temperature: { type: 'number' }, conditions: { type: 'string' } },
      required: ['temperature'],
    },
  },
  { name: 'class', inputSchema: { type: 'object' } },
  { name: '__init__', inputSchema: { type: 'object' } },
  { name: 'getUser', inputSchema: { type: 'object' } },
  { name: 'get_user', inputSchema: { type: 'object' } },
  { name: '1st.tool/x', inputSchema: { type: 'object' } },
  { name: 'run', inputSchema: { type: 'object', properties: { Params: { type: 'string' } } } },
];

describe('generateMcpSources', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'mcptools-gen-'));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test('writes one module per tool with sanitized unique names, keeping the original names', async () => {
    const generated = await generateMcpSources('my-server', { command: 'x' }, root, {
      listTools: async () => TOOLS,
    });
    assert.equal(generated.package, 'my_server');
    assert.deepEqual(
      generated.tools.map((t) => [t.module, t.name]),
      [
        ['echo', 'echo'],
        ['search_items', 'search-items'],
        ['get_weather', 'get-weather'],
        ['class_', 'class'],
        ['init', '__init__'],
        ['get_user', 'getUser'],
        ['get_user_2', 'get_user'],
        ['tool_1st_tool_x', '1st.tool/x'],
        ['run', 'run'],
      ],
    );
    const files = (await readdir(generated.directory)).sort();
    assert.deepEqual(
      files,
      [...generated.tools.map((t) => `${t.module}.py`), '__init__.py'].sort(),
    );
    assert.ok(existsSync(join(root, 'mcptools', '_runtime.py')));
    assert.ok(existsSync(join(root, 'mcptools', 'results.py')), 'mcptools.results beside it');
    assert.ok(
      !existsSync(join(root, 'mcptools', '__init__.py')),
      'mcptools stays a namespace package',
    );

    const seen = await pythonJson<Record<string, string>>(
      `
import importlib, json, py_compile, pathlib
for f in sorted(pathlib.Path('mcptools').rglob('*.py')):
    py_compile.compile(str(f), doraise=True)
import mcptools.my_server as pkg
out = {m: importlib.import_module('mcptools.my_server.' + m).TOOL_NAME for m in pkg.TOOLS}
assert out == pkg.TOOLS, (out, pkg.TOOLS)
assert pkg.SERVER_NAME == 'my-server'
print(json.dumps(out))
`,
      { root },
    );
    assert.equal(seen.class_, 'class');
    assert.equal(seen.tool_1st_tool_x, '1st.tool/x');
  });

  test('Params keeps reserved words and odd property names as real keys, with required flags', async () => {
    await generateMcpSources('types', {}, root, { listTools: async () => TOOLS });
    const info = await pythonJson<{
      required: string[];
      optional: string[];
      mode: string[];
      level: unknown[];
      filterRequired: string[];
      rangeRequired: string[];
      op: string[];
      tags: string;
      either: string;
      maybe: string;
      labels: string;
      treeChildren: string;
    }>(
      `
import json, typing
from mcptools.types import search_items as m
P = m.Params
hints = typing.get_type_hints(P)
F = typing.get_type_hints(P)['filter']
print(json.dumps({
  'required': sorted(P.__required_keys__),
  'optional': sorted(P.__optional_keys__),
  'mode': list(typing.get_args(hints['mode'])),
  'level': list(typing.get_args(hints['level'])),
  'filterRequired': sorted(F.__required_keys__),
  'rangeRequired': sorted(typing.get_type_hints(F)['range'].__required_keys__),
  'op': list(typing.get_args(typing.get_type_hints(F)['op'])),
  'tags': repr(hints['tags']),
  'either': repr(hints['either']),
  'maybe': repr(hints['maybe']),
  'labels': repr(hints['labels']),
  'treeChildren': repr(typing.get_type_hints(hints['tree'])['children']),
}))
`,
      { root },
    );
    assert.deepEqual(info.required, ['class', 'x-y']);
    assert.deepEqual(info.optional, [
      '',
      'either',
      'filter',
      'import',
      'labels',
      'level',
      'maybe',
      'mode',
      'quo\'te"s',
      'tags',
      'tree',
      'with space',
    ]);
    assert.deepEqual(info.mode, ['fast', 'slow', "it's"]);
    assert.deepEqual(info.level, [1, 2, null]);
    assert.deepEqual(info.filterRequired, ['field']);
    assert.deepEqual(info.rangeRequired, ['min']);
    assert.deepEqual(info.op, ['eq']);
    assert.equal(info.tags, 'list[str]');
    assert.equal(info.either, 'typing.Union[str, int]');
    assert.equal(info.maybe, 'typing.Optional[str]');
    assert.equal(info.labels, 'dict[str, str]');
    assert.match(info.treeChildren, /^list\[.*Node.*\]$/);
  });

  test('a tool with an output schema gets a Result type and run is annotated with it', async () => {
    await generateMcpSources('weather', {}, root, { listTools: async () => TOOLS });
    const info = await pythonJson<{ result: string[]; returns: string; doc: string }>(
      `
import json, typing
from mcptools.weather import get_weather as m
print(json.dumps({
  'result': sorted(m.Result.__required_keys__),
  'returns': repr(typing.get_type_hints(m.run)['return']),
  'doc': m.__doc__,
}))
`,
      { root },
    );
    assert.deepEqual(info.result, ['temperature']);
    assert.match(info.returns, /Result, str\]$/);
    assert.equal(info.doc, 'Weather', 'the title stands in for a missing description');
  });

  test('a malicious description cannot inject code: the file compiles and the text stays data', async () => {
    const marker = join(root, 'PWNED');
    const payloads = [
      `"""\nimport os; open(${JSON.stringify(marker)}, 'w').write('1')\n"""`,
      `'''\nopen(${JSON.stringify(marker)}, 'w')\n'''`,
      `ends with a quote"`,
      `ends with a backslash \\`,
      `\\"""; open(${JSON.stringify(marker)}, 'w'); """`,
      `\\N{LATIN SMALL LETTER A} \\x41 \\u0041`,
      `nul\u0000byte`,
      `cr\rlf\r\n and \u2028 separators`,
      `bidi \u202e}) ;lave(\u202c trojan`,
      `lone surrogate \ud800 here`,
    ];
    const description = payloads.join(' || ');
    const evil: ToolDefinition = {
      name: 'evil"""\nimport os',
      description,
      inputSchema: {
        type: 'object',
        properties: {
          [`"""\nopen(${JSON.stringify(marker)}, 'w')\n`]: {
            type: 'string',
            description: `"""\nopen(${JSON.stringify(marker)}, 'w')\n"""`,
            enum: [`'); open(${JSON.stringify(marker)}, 'w') #`],
          },
        },
      },
    };
    const generated = await generateMcpSources(
      `evil'); open(${JSON.stringify(marker)}, 'w') #`,
      {},
      root,
      {
        listTools: async () => [evil],
      },
    );
    const module = generated.tools[0]!.module;
    const seen = await pythonJson<{ doc: string; name: string; runDocStarts: boolean }>(
      `
import importlib, json
m = importlib.import_module('mcptools.${generated.package}.${module}')
print(json.dumps({'doc': m.__doc__, 'name': m.TOOL_NAME, 'runDocStarts': m.run.__doc__.startswith(m.__doc__.split('\\n')[0])}))
`,
      { root },
    );
    assert.equal(existsSync(marker), false, 'no injected code ran');
    // JSON cannot carry lone surrogates, so compare after the same replacement Python's json does.
    assert.equal(seen.doc, JSON.parse(JSON.stringify(description)));
    assert.equal(seen.name, evil.name);
    assert.ok(seen.runDocStarts);
    const source = await readFile(join(generated.directory, `${module}.py`), 'utf8');
    assert.ok(
      !source.includes('\u0000') && !source.includes('\u202e'),
      'no raw NUL or bidi override',
    );
  });

  test('server params never reach the files: no secret, not even the placeholder', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const generated = await generateMcpSources(
      'secretive',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder
      { command: 'server', env: { API_KEY: '${API_KEY}' }, headers: { Authorization: secret } },
      root,
      { listTools: async () => TOOLS.slice(0, 1) },
    );
    for (const file of await readdir(generated.directory)) {
      const text = await readFile(join(generated.directory, file), 'utf8');
      assert.ok(!text.includes(secret), `${file} holds the secret`);
      assert.ok(!text.includes('API_KEY'), `${file} holds server params`);
    }
  });

  test('re-registering replaces the package: modules of vanished tools are removed', async () => {
    await generateMcpSources('shrinking', {}, root, { listTools: async () => TOOLS.slice(0, 3) });
    const again = await generateMcpSources('shrinking', {}, root, {
      listTools: async () => TOOLS.slice(0, 1),
    });
    assert.deepEqual((await readdir(again.directory)).sort(), ['__init__.py', 'echo.py']);
    assert.deepEqual(
      (await readdir(join(root, 'mcptools'))).filter((f) => f.endsWith('.tmp')),
      [],
      'no staging directory left behind',
    );
  });

  test('without listTools, it connects once with the server params (a real upstream)', async () => {
    const everything = fileURLToPath(
      new URL('../../../../node_modules/.bin/mcp-server-everything', import.meta.url),
    );
    const generated = await generateMcpSources(
      'everything',
      { command: everything, args: ['stdio'] },
      root,
    );
    const echo = generated.tools.find((t) => t.name === 'echo');
    assert.deepEqual(echo, { module: 'echo', name: 'echo' });
    assert.ok(generated.tools.some((t) => t.module === 'get_structured_content'));
  });

  test('invalid server params fail with a message naming the field, and nothing is written', async () => {
    await assert.rejects(generateMcpSources('broken', { command: 'x', args: 'not-a-list' }, root), {
      code: 'INVALID_PARAMS',
      message: /server_params\.args/,
    });
    assert.equal(existsSync(join(root, 'mcptools', 'broken')), false);
  });

  test('run without a tool server address fails with a clear Python exception', async () => {
    await generateMcpSources('offline', {}, root, { listTools: async () => TOOLS.slice(0, 1) });
    const run = await runPython(
      `
from mcptools.offline import echo
from mcptools._runtime import ToolServerUnavailable
try:
    echo.run({'message': 'hi'})
except ToolServerUnavailable as e:
    print('unavailable:', e)
`,
      { root },
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /unavailable: IPYBOX_TOOL_SERVER is not set/);
  });
});
