/**
 * `ServerRegistry`: the MCP servers registered with `register_mcp_server`, remembered across
 * restarts of ipybox, so the `mcptools/<name>/` modules a workspace keeps go on working.
 *
 * The params are stored as written: `${VAR}` placeholders stay placeholders, expanded only when
 * connecting. A registration holding a literal secret (a token in a header, a password in a URL,
 * an API key in `env`) is not stored at all, and the caller is told why and what to write instead.
 *
 * The file is kept outside the workspace, in the user's state directory
 * (`$XDG_STATE_HOME/mcpbox/ipybox/`, else `~/.local/state/…`; directory 0700, file 0600), one
 * file per workspace: what it lists is a command the host runs outside any sandbox, and a
 * sandboxed kernel may write anywhere in the workspace — a registry there would let kernel code
 * choose what the host runs.
 *
 * At start, an entry whose `mcptools/<name>/` is gone (deleted by the user) or whose params no
 * longer parse is dropped, and so are the files of temporary workspaces (under the system's
 * temporary directory) that no longer exist — a workspace elsewhere may only be unmounted.
 *
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  errorMessage,
  type Logger,
  parseUpstreamParams,
  redactValue,
  type UpstreamParams,
} from '@mcpbox/framework';

const FORMAT = 1;

interface RegistryFile {
  format: number;
  /** The workspace this file belongs to (for people reading it; the file name is its hash). */
  workspace: string;
  servers: Record<string, UpstreamParams>;
}

export interface ServerRegistryOptions {
  /** Where `XDG_STATE_HOME` and `HOME` are read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

export class ServerRegistry {
  /** The file this workspace's registrations live in. */
  readonly file: string;
  readonly #workspace: string;
  readonly #servers: Map<string, UpstreamParams>;
  readonly #logger: Pick<Logger, 'info' | 'warn'> | undefined;

  private constructor(
    file: string,
    workspace: string,
    servers: Map<string, UpstreamParams>,
    logger: ServerRegistryOptions['logger'],
  ) {
    this.file = file;
    this.#workspace = workspace;
    this.#servers = servers;
    this.#logger = logger;
  }

  /** Reads what `workspace` had registered; drops entries that no longer work. */
  static async open(
    workspace: string,
    { env = process.env, logger }: ServerRegistryOptions = {},
  ): Promise<ServerRegistry> {
    const root = resolve(workspace);
    const file = registryFile(root, env);
    const servers = new Map<string, UpstreamParams>();
    const stored = await readRegistry(file, logger);
    let dropped = false;
    for (const [name, raw] of Object.entries(stored?.servers ?? {})) {
      if (!existsSync(join(root, 'mcptools', name))) {
        logger?.info(`ipybox: forgetting MCP server ${name}: mcptools/${name}/ is gone`);
        dropped = true;
        continue;
      }
      try {
        servers.set(name, parseUpstreamParams(raw, `registered server ${name}`));
      } catch (error) {
        logger?.warn(`ipybox: forgetting MCP server ${name}: ${errorMessage(error)}`);
        dropped = true;
      }
    }
    const registry = new ServerRegistry(file, root, servers, logger);
    if (dropped) await registry.#save();
    await sweepGoneTemporaryWorkspaces(join(file, '..'));
    return registry;
  }

  /** What is remembered, by name. */
  get servers(): ReadonlyMap<string, UpstreamParams> {
    return this.#servers;
  }

  /**
   * Remembers `name` → `params` (replacing an earlier entry). Returns `undefined` when stored,
   * else a note for the user saying why the registration lasts only until ipybox stops.
   */
  async remember(name: string, params: UpstreamParams): Promise<string | undefined> {
    const secrets = literalSecretFields(params);
    if (secrets.length > 0) {
      // An earlier registration under this name must not come back after a restart either.
      await this.forget(name);
      return (
        `Not remembered across restarts of ipybox: server_params holds a literal secret in ${secrets.join(', ')}. ` +
        'Write it as a $' +
        '{VAR} placeholder (set VAR in the environment or the workspace .env) to have this registration remembered.'
      );
    }
    this.#servers.set(name, params);
    try {
      await this.#save();
      return undefined;
    } catch (error) {
      this.#servers.delete(name);
      this.#logger?.warn(`ipybox: cannot save the MCP server registry: ${errorMessage(error)}`);
      return `Not remembered across restarts of ipybox: cannot write ${this.file} (${errorMessage(error)}).`;
    }
  }

  async forget(name: string): Promise<void> {
    if (!this.#servers.delete(name)) return;
    await this.#save().catch((error) => {
      this.#logger?.warn(`ipybox: cannot save the MCP server registry: ${errorMessage(error)}`);
    });
  }

  /** Written whole to a temporary file and renamed, so a reader never sees half of it. */
  async #save(): Promise<void> {
    const body: RegistryFile = {
      format: FORMAT,
      workspace: this.#workspace,
      servers: Object.fromEntries(this.#servers),
    };
    const dir = join(this.file, '..');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
      await chmod(temp, 0o600); // whatever the umask
      await rename(temp, this.file);
    } finally {
      await rm(temp, { force: true });
    }
  }
}

/** `<state>/mcpbox/ipybox/workspaces/<sha256 of the workspace path>.json`. */
export function registryFile(
  workspace: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  const id = createHash('sha256').update(resolve(workspace)).digest('hex').slice(0, 32);
  return join(state, 'mcpbox', 'ipybox', 'workspaces', `${id}.json`);
}

/** Deletes the registry files of workspaces under the temporary directory that are gone. */
async function sweepGoneTemporaryWorkspaces(dir: string): Promise<void> {
  const temp = `${resolve(tmpdir())}/`;
  const files = await readdir(dir).catch(() => [] as string[]);
  for (const name of files.filter((f) => f.endsWith('.json')).slice(0, 1000)) {
    const path = join(dir, name);
    try {
      const { workspace } = JSON.parse(await readFile(path, 'utf8')) as Partial<RegistryFile>;
      if (typeof workspace === 'string' && workspace.startsWith(temp) && !existsSync(workspace)) {
        await rm(path, { force: true });
      }
    } catch {
      // Unreadable or being replaced right now: not ours to judge.
    }
  }
}

async function readRegistry(
  file: string,
  logger: ServerRegistryOptions['logger'],
): Promise<RegistryFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    logger?.warn(`ipybox: cannot read the MCP server registry ${file}: ${errorMessage(error)}`);
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as RegistryFile;
    if (parsed?.format !== FORMAT || typeof parsed.servers !== 'object' || !parsed.servers) {
      throw new Error(`not a format-${FORMAT} registry`);
    }
    return parsed;
  } catch (error) {
    logger?.warn(
      `ipybox: ignoring the MCP server registry ${file} (${errorMessage(error)}); register the servers again`,
    );
    return undefined;
  }
}

/** Placeholders, and what is left of a value that is only a scheme plus placeholders. */
const PLACEHOLDER = /\$\{[^}]*\}/g;
const SCHEME_ONLY = /^\s*(?:bearer|basic|token)?\s*$/i;

/**
 * Dotted paths of the fields of `params` that hold a secret written out, not as a `${VAR}`
 * placeholder: the framework's redaction rules (secret names such as `API_KEY` or
 * `Authorization`, secret-looking values such as `ghp_…`, a URL's password) applied to the
 * params with their placeholders taken out.
 */
export function literalSecretFields(params: UpstreamParams): string[] {
  const bare = stripPlaceholders(params);
  const redacted = redactValue(bare);
  const found: string[] = [];
  compare(bare, redacted, [], found);
  return found;
}

function stripPlaceholders(value: unknown): unknown {
  if (typeof value === 'string') {
    const rest = value.replace(PLACEHOLDER, '');
    return SCHEME_ONLY.test(rest) ? '' : rest;
  }
  if (Array.isArray(value)) return value.map(stripPlaceholders);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, stripPlaceholders(inner)]),
    );
  }
  return value;
}

function compare(before: unknown, after: unknown, path: string[], found: string[]): void {
  if (before && typeof before === 'object' && after && typeof after === 'object') {
    for (const [key, inner] of Object.entries(before)) {
      compare(inner, (after as Record<string, unknown>)[key], [...path, key], found);
    }
    return;
  }
  if (before !== after) found.push(path.join('.'));
}
