/**
 * `mcp-proxy new-plugin NAME [DIR]`: writes a plugin folder to start from.
 *
 *   DIR/NAME/index.ts       MCP wiring only: tool names, descriptions, zod input schemas
 *   DIR/NAME/tools.ts       the logic, plain functions with no MCP imports
 *   DIR/NAME/tools.test.ts  node:test tests for tools.ts
 *
 * The split keeps the logic testable and reusable without a server, and the wiring short enough
 * to read at a glance. An existing folder (or a `NAME.ts` / `NAME.js` plugin file, which the
 * loader would pick before the folder) is never overwritten.
 *
 * @module
 */
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';

/** Lowercase letters, digits and underscores, starting with a letter: safe as a folder name,
 * a tool-name prefix (`NAME_hello`) and an identifier. */
const PLUGIN_NAME = /^[a-z][a-z0-9_]{0,39}$/;

export type NewPluginErrorCode = 'INVALID_PLUGIN_NAME' | 'PLUGIN_EXISTS';

/** A refusal with a message written for the user (the CLI prints it without a stack). */
export class NewPluginError extends Error {
  readonly code: NewPluginErrorCode;

  constructor(code: NewPluginErrorCode, message: string) {
    super(message);
    this.name = 'NewPluginError';
    this.code = code;
  }
}

export interface NewPluginOptions {
  /** Resolves a relative `dir`. Default `process.cwd()`. */
  cwd?: string;
}

export interface NewPluginResult {
  /** Absolute path of the new plugin folder. */
  dir: string;
  /** Absolute paths of the files written, in the order listed above. */
  files: string[];
}

export function validatePluginName(name: string): void {
  if (!PLUGIN_NAME.test(name)) {
    throw new NewPluginError(
      'INVALID_PLUGIN_NAME',
      `Invalid plugin name "${name}": use lowercase letters, digits and underscores, starting with a letter, at most 40 characters (e.g. weather or my_tools).`,
    );
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes the plugin folder `dir/name`.
 *
 * @param dir the plugin directory; default `plugins` (relative to `options.cwd`)
 * @throws NewPluginError for an invalid name or when the plugin already exists
 */
export async function newPlugin(
  name: string,
  dir = 'plugins',
  options: NewPluginOptions = {},
): Promise<NewPluginResult> {
  validatePluginName(name);
  const cwd = options.cwd ?? process.cwd();
  const parent = resolve(cwd, dir);
  const target = join(parent, name);
  const shown = relative(cwd, target) || target;

  for (const shadow of [`${name}.ts`, `${name}.js`]) {
    if (await exists(join(parent, shadow))) {
      throw new NewPluginError(
        'PLUGIN_EXISTS',
        `A plugin named "${name}" already exists: ${relative(cwd, join(parent, shadow))}. Choose another name.`,
      );
    }
  }
  await mkdir(parent, { recursive: true });
  try {
    // Not recursive: creating the folder itself is the check that it did not exist, with no gap
    // between checking and writing.
    await mkdir(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new NewPluginError(
        'PLUGIN_EXISTS',
        `${shown} already exists; not overwriting it. Choose another name or remove it first.`,
      );
    }
    throw error;
  }

  const files: [string, string][] = [
    ['index.ts', indexSource(name)],
    ['tools.ts', toolsSource(name)],
    ['tools.test.ts', testSource(name)],
  ];
  for (const [file, text] of files) {
    await writeFile(join(target, file), text, { flag: 'wx' });
  }
  return { dir: target, files: files.map(([file]) => join(target, file)) };
}

/** `path` relative to `cwd` when it lies below it, else absolute (no `../../` chains). */
function shownPath(path: string, cwd: string): string {
  const below = relative(cwd, path);
  return below === '' ? '.' : below.startsWith('..') || isAbsolute(below) ? path : below;
}

/** What the CLI prints after scaffolding: the files and the next steps. */
export function describeNewPlugin(
  name: string,
  result: NewPluginResult,
  cwd = process.cwd(),
): string {
  const pluginDir = shownPath(resolve(result.dir, '..'), cwd);
  return [
    `Created plugin "${name}" in ${shownPath(result.dir, cwd)}/:`,
    ...result.files.map((f) => `  ${shownPath(f, cwd)}`),
    '',
    'Next:',
    `  node --import tsx --test ${shownPath(result.files[2], cwd)}   # test the logic`,
    `  mcp-factory --plugin-dir ${pluginDir} -p ${name}   # serve it over stdio`,
  ].join('\n');
}

function indexSource(name: string): string {
  return `/**
 * ${name} — an mcpbox plugin. This file is the MCP wiring only: tool names, descriptions and
 * input schemas. The logic lives in tools.ts, which knows nothing about MCP.
 *
 * \`register(server, config)\` is called once when the plugin loads. \`server\` offers the SDK's
 * \`McpServer\` registration calls (\`registerTool\`, \`registerResource\`, \`registerPrompt\`);
 * \`config\` holds this plugin's settings from the server's configuration.
 *
 * A handler may return a string (one text block) or a full \`CallToolResult\`. If it throws, the
 * client gets an \`isError\` result with the message, and the server stays up.
 */
import type { PluginConfig, PluginServer } from '@mcpbox/framework';
import { z } from 'zod';
import { add, hello } from './tools.ts';

/** Shown by plugin listings. */
export const description = 'TODO: what this plugin does, in one line.';

export function register(server: PluginServer, config: PluginConfig): void {
  // Settings are optional; read them defensively and fall back to a default.
  const greeting = typeof config.greeting === 'string' ? config.greeting : 'Hello';

  server.registerTool(
    '${name}_hello',
    {
      description: 'Greets someone by name.',
      inputSchema: { who: z.string().optional().describe('Who to greet (default: World)') },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ who }) => hello(who, greeting),
  );

  server.registerTool(
    '${name}_add',
    {
      description: 'Adds two integers.',
      inputSchema: {
        a: z.number().int().describe('First addend'),
        b: z.number().int().describe('Second addend'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ a, b }) => add(a, b),
  );
}
`;
}

function toolsSource(name: string): string {
  return `/**
 * ${name} — the plugin's logic: plain functions of their arguments, with no MCP imports, so they
 * can be tested (tools.test.ts) and reused without a server.
 *
 * Return text for the model to read. To fail, throw an Error whose message says what to do
 * differently; the plugin wiring turns it into an isError result.
 */

export function hello(who = 'World', greeting = 'Hello'): string {
  return \`\${greeting} from ${name}, \${who}!\`;
}

export function add(a: number, b: number): string {
  if (!Number.isSafeInteger(a + b)) {
    throw new Error('The sum is too large to be exact; use smaller numbers.');
  }
  return \`\${a} + \${b} = \${a + b}\`;
}
`;
}

function testSource(name: string): string {
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { add, hello } from './tools.ts';

test('hello greets by name, and the world by default', () => {
  assert.equal(hello('Ann'), 'Hello from ${name}, Ann!');
  assert.equal(hello(), 'Hello from ${name}, World!');
  assert.equal(hello('Ann', 'Hi'), 'Hi from ${name}, Ann!');
});

test('add shows the sum', () => {
  assert.equal(add(2, 3), '2 + 3 = 5');
  assert.equal(add(-4, 4), '-4 + 4 = 0');
});

test('add refuses sums too large to be exact', () => {
  assert.throws(() => add(Number.MAX_SAFE_INTEGER, 1), /too large/);
});
`;
}
