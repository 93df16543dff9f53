/**
 * Reading configuration. Precedence, highest first, the same for every key:
 *
 *   command-line overrides  >  config file  >  MCP_* environment  >  program defaults  >  built-in defaults
 *
 * (mcp-proxy's issue asks for "CLI flag > config file > environment"; the factory follows the same
 * order so one config file behaves the same under both.)
 *
 * `readConfig` returns a result with every problem collected; `loadConfig` is the API edge that
 * throws a {@link ConfigError} listing them all.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';

type ZodIssue = z.core.$ZodIssue;

import { ConfigError } from '../errors.ts';
import { yaml } from '../lazy.ts';
import { createLogger } from '../logging/index.ts';
import { environmentLayers } from './environment.ts';
import { type ConfigPath, interpolateTree } from './interpolate.ts';
import { absolutePaths, homeDirectory, mergeLayers, resolveConfig } from './resolve.ts';
import { describeValue, knownConfigKeys, writtenConfigSchema } from './schema.ts';
import type { Config, ConfigOverrides, WrittenConfig } from './types.ts';

export interface LoadConfigOptions {
  /** YAML file to read; relative to `cwd`. Without it only the environment and defaults count. */
  file?: string;
  /** Environment for `MCP_*` overrides and `${VAR}` interpolation. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Base for relative paths given outside a file. Default `process.cwd()`. */
  cwd?: string;
  /** A program's own defaults (e.g. its `server_name`), below the environment and the file. */
  defaults?: WrittenConfig;
  /** Command-line values, above everything; `undefined` entries are ignored. */
  overrides?: ConfigOverrides;
}

export type ConfigResult =
  | { ok: true; config: Config; warnings: string[] }
  | { ok: false; errors: string[]; warnings: string[] };

/** The merged written layers behind each resolved config, so overrides can re-resolve it. */
const writtenBehind = new WeakMap<Config, WrittenConfig>();

export function formatPath(path: ConfigPath): string {
  return path
    .map((part, index) =>
      typeof part === 'number' ? `[${part}]` : index === 0 ? part : `.${part}`,
    )
    .join('');
}

function issueLines(source: string, issues: readonly ZodIssue[], rename?: string): string[] {
  return issues.map((issue) => {
    const key = formatPath(issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)));
    const prefix = key ? `${source}: ${rename ?? key}` : source;
    return `${prefix}: ${issue.message}`;
  });
}

/** Validates one layer; issues are prefixed with `source` and the dotted key. */
function parseLayer(
  source: string,
  raw: Record<string, unknown>,
): { layer: WrittenConfig; errors: string[] } {
  const parsed = writtenConfigSchema().safeParse(raw);
  if (parsed.success) return { layer: parsed.data, errors: [] };
  // Report in the order the keys were written, not the schema's order.
  const order = Object.keys(raw);
  const rank = (issue: ZodIssue) => order.indexOf(String(issue.path[0]));
  const issues = [...parsed.error.issues].sort((a, b) => rank(a) - rank(b));
  return { layer: {}, errors: issueLines(source, issues) };
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j] + 1,
        current[j - 1] + 1,
        previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length];
}

function unknownKeyWarning(source: string, key: string): string {
  const near = [...knownConfigKeys()].find((known) => levenshtein(known, key) <= 2);
  return `${source}: unknown key "${key}" is ignored${near ? ` (did you mean "${near}"?)` : ''}`;
}

/** Connection settings of a `plugins:` entry that mirrors another MCP server. */
const UPSTREAM_CONNECTION_KEYS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'list_headers',
]);

/**
 * Placeholders in an upstream entry's connection settings (`plugins.NAME.env`, `.headers`, …)
 * and an OpenAPI entry's `openapi.auth` are kept as written: the MCP client expands them only when it connects, so secrets never sit in
 * the resolved config, and a variable needed only by a plugin that is not loaded cannot fail it.
 */
function upstreamConnectionSettings(raw: object) {
  const plugins = (raw as { plugins?: unknown }).plugins;
  const isUpstream = (name: string) => {
    const entry = (plugins as Record<string, unknown> | undefined)?.[name];
    return typeof entry === 'object' && entry !== null && ('command' in entry || 'url' in entry);
  };
  return (path: ConfigPath) =>
    path[0] === 'plugins' &&
    ((path.length === 3 &&
      UPSTREAM_CONNECTION_KEYS.has(String(path[2])) &&
      isUpstream(String(path[1]))) ||
      // An OpenAPI entry's credentials, likewise resolved when the plugin loads (openapi/credentials.ts).
      (path.length === 4 && path[2] === 'openapi' && path[3] === 'auth'));
}

/** Reads, interpolates and validates the file; every problem is returned, none thrown. */
function readFileLayer(
  path: string,
  env: Readonly<Record<string, string | undefined>>,
): { layer: WrittenConfig; errors: string[]; warnings: string[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'file not found' : `cannot read (${code ?? error})`;
    return { layer: {}, errors: [`${path}: ${reason}`], warnings: [] };
  }
  const document = yaml().parseDocument(text);
  if (document.errors.length > 0) {
    return {
      layer: {},
      errors: document.errors.map((e) => {
        const at = e.linePos?.[0];
        return `${path}${at ? `:${at.line}:${at.col}` : ''}: invalid YAML: ${e.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}`;
      }),
      warnings: [],
    };
  }
  const raw: unknown = document.toJS() ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      layer: {},
      errors: [`${path}: expected a mapping of configuration keys, got ${describeValue(raw)}`],
      warnings: [],
    };
  }
  const warnings = Object.keys(raw)
    .filter((key) => !knownConfigKeys().has(key))
    .map((key) => unknownKeyWarning(path, key));
  const interpolated = interpolateTree(raw, env, upstreamConnectionSettings(raw));
  const errors = interpolated.issues.map(
    (issue) => `${path}: ${formatPath(issue.path)}: ${issue.message}`,
  );
  // Keys whose placeholders failed are reported once, not again as "wrong value".
  const failed = new Set(interpolated.issues.map((issue) => formatPath(issue.path)));
  const parsed = parseLayer(path, interpolated.value as Record<string, unknown>);
  errors.push(
    ...parsed.errors.filter(
      (line) => ![...failed].some((key) => line.startsWith(`${path}: ${key}: `)),
    ),
  );
  return { layer: parsed.layer, errors, warnings };
}

function readEnvironmentLayer(env: Readonly<Record<string, string | undefined>>): {
  layer: WrittenConfig;
  errors: string[];
} {
  const layers: WrittenConfig[] = [];
  const errors: string[] = [];
  for (const { variable, key, value } of environmentLayers(env)) {
    const parsed = writtenConfigSchema().safeParse({ [key]: value });
    if (parsed.success) layers.push(parsed.data);
    else errors.push(...issueLines(`environment variable ${variable}`, parsed.error.issues));
  }
  return { layer: mergeLayers(layers), errors };
}

function withoutUndefined(overrides: ConfigOverrides): Record<string, unknown> {
  return Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
}

/** Reads configuration and reports every problem as data. */
export function readConfig(options: LoadConfigOptions = {}): ConfigResult {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const home = homeDirectory(env);
  const errors: string[] = [];
  const warnings: string[] = [];
  const layers: WrittenConfig[] = [];

  if (options.defaults) {
    const parsed = parseLayer('program defaults', options.defaults as Record<string, unknown>);
    errors.push(...parsed.errors);
    layers.push(absolutePaths(parsed.layer, cwd, home));
  }

  const fromEnv = readEnvironmentLayer(env);
  errors.push(...fromEnv.errors);
  layers.push(fromEnv.layer);

  const configFile = options.file === undefined ? undefined : resolve(cwd, options.file);
  if (configFile !== undefined) {
    const fromFile = readFileLayer(configFile, env);
    errors.push(...fromFile.errors);
    warnings.push(...fromFile.warnings);
    layers.push(absolutePaths(fromFile.layer, dirname(configFile), home));
  }

  if (options.overrides) {
    const parsed = parseLayer('command line', withoutUndefined(options.overrides));
    errors.push(...parsed.errors);
    layers.push(absolutePaths(parsed.layer, cwd, home));
  }

  if (errors.length > 0) return { ok: false, errors, warnings };
  const written = mergeLayers(layers);
  const config = resolveConfig(written, { home, configFile });
  writtenBehind.set(config, written);
  return { ok: true, config, warnings };
}

const log = createLogger('config');

/**
 * Loads configuration, logging warnings (unknown keys) to stderr.
 *
 * @throws {ConfigError} listing every problem as `<file>: <dotted.key>: <what was expected>`.
 * @example
 * const config = loadConfig({ file: 'mcpbox.yaml' });
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const result = readConfig(options);
  for (const warning of result.warnings) log.warn(warning);
  if (!result.ok) throw new ConfigError(result.errors);
  return result.config;
}

/**
 * Returns a new config with command-line values applied on top (undefined entries ignored).
 * Derived values are recomputed: `health_port` follows an overridden `port` unless it was set
 * explicitly somewhere.
 *
 * @throws {ConfigError} when an override has a wrong value.
 */
export function applyOverrides(
  config: Config,
  overrides: ConfigOverrides,
  options: { cwd?: string; env?: Readonly<Record<string, string | undefined>> } = {},
): Config {
  const env = options.env ?? process.env;
  const home = homeDirectory(env);
  const parsed = parseLayer('command line', withoutUndefined(overrides));
  if (parsed.errors.length > 0) throw new ConfigError(parsed.errors);
  // A config not made by loadConfig: every key counts as written.
  const base = writtenBehind.get(config) ?? (config as WrittenConfig);
  const written = mergeLayers([
    base,
    absolutePaths(parsed.layer, options.cwd ?? process.cwd(), home),
  ]);
  const next = resolveConfig(written, { home, configFile: config.config_file });
  writtenBehind.set(next, written);
  return next;
}
