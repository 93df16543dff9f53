/**
 * `Ipybox`: the state one ipybox server keeps across its MCP sessions — the workspace, its
 * environment and venv, the MCP servers registered so far, and the kernels of its callers.
 *
 * @module
 */
import { mkdir, stat } from 'node:fs/promises';
import {
  createLogger,
  type GateCallContext,
  type Logger,
  type PluginServer,
  parseUpstreamParams,
  type UpstreamParams,
} from '@mcpbox/framework';
import type { Tool } from '@modelcontextprotocol/server';
import { type EnvMap, loadEnvironment } from '../kernels/environment.ts';
import { kernelCallerOf } from '../kernels/kernelCaller.ts';
import type { KernelSessionContext } from '../kernels/kernelSession.ts';
import { type KernelLease, Kernels } from '../kernels/kernels.ts';
import {
  type InstallOptions,
  type InstallOutcome,
  WorkspaceVenv,
} from '../kernels/workspaceVenv.ts';
import { ServerRegistry } from '../mcptools/registry.ts';
import { RUNTIME_MODULES, writeRuntimeModules } from '../mcptools/runtimeFiles.ts';
import type { IpyboxSettings } from '../settings.ts';
import { SkillWriter } from '../skills/skillWriter.ts';

export interface IpyboxOptions {
  /** The process environment to read (default `process.env`); `.env` fills what it lacks. */
  env?: EnvMap;
  logger?: Logger;
  /** Code mode: the catalog's tools callable from kernel code, beside registered servers. */
  toolConnections?: KernelSessionContext['toolConnections'];
  /** Code mode: the approval policy per tool (default `settings.approval` for every call). */
  approvalPolicy?: KernelSessionContext['approvalPolicy'];
  /** Where kernel code's approvals are recorded (the host's `server.audit`). */
  audit?: KernelSessionContext['audit'];
  /** Where kernel code's `mcptools.results.load` reads (the host catalog's `openResult`). */
  openResult?: KernelSessionContext['openResult'];
}

/**
 * The Python package generator (mcptools/, ~17 KB with its renderers), loaded when a server is
 * registered or its tools are listed, not with every start-up (bench/startup.ts).
 */
const generatorModule = () => import('../mcptools/generate.ts');

/** Names the kernel imports as `mcptools.<name>`: keep them plain, as the docs promise. */
const SERVER_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export class Ipybox {
  readonly settings: IpyboxSettings;
  readonly kernels: Kernels;
  readonly venv: WorkspaceVenv;
  /** Skills saved from code (`save_skill`), in `<workspace>/skills/`. */
  readonly skills: SkillWriter;
  readonly #hostEnv: Record<string, string>;
  readonly #servers = new Map<string, UpstreamParams>();
  /** Registrations remembered across restarts (`mcptools/registry.ts`). */
  readonly #registry: ServerRegistry;
  readonly #logger: Logger;
  readonly #registryEnv: IpyboxOptions['env'];
  /** The registry file's mtime when last read (0: not read since start). */
  #registryStamp = 0;
  #stopFollowingSessions: () => void = () => undefined;

  private constructor(
    settings: IpyboxSettings,
    env: { host: Record<string, string>; kernel: Record<string, string> },
    logger: Logger,
    registry: ServerRegistry,
    calls: IpyboxOptions,
  ) {
    this.settings = settings;
    this.#registryEnv = calls.env;
    this.#registry = registry;
    for (const [name, params] of registry.servers) this.#servers.set(name, params);
    this.#hostEnv = env.host;
    this.#logger = logger;
    this.venv = new WorkspaceVenv(settings.workspace, settings.basePython);
    this.skills = new SkillWriter(settings.workspace);
    const userPath = env.kernel.PYTHONPATH;
    this.kernels = new Kernels({
      settings,
      hostEnv: env.host,
      kernelEnv: {
        ...env.kernel,
        // `import mcptools.<server>` works whatever the kernel's cwd becomes.
        PYTHONPATH: userPath ? `${settings.workspace}:${userPath}` : settings.workspace,
      },
      python: () => (this.venv.exists ? this.venv.python : settings.basePython),
      servers: this.#servers,
      toolConnections: calls.toolConnections,
      approvalPolicy: calls.approvalPolicy,
      audit: calls.audit,
      openResult: calls.openResult,
      logger,
    });
  }

  /** Creates the workspace if missing and reads its `.env`. */
  static async create(settings: IpyboxSettings, options: IpyboxOptions = {}): Promise<Ipybox> {
    await mkdir(settings.workspace, { recursive: true });
    // Missing bwrap/socat/rg or a bad --sandbox-config fail here, at start, not at the first cell.
    if (settings.sandbox || settings.sandboxConfig !== undefined) {
      // Imported here: sandbox-runtime is heavy, and an unsandboxed ipybox starts without it.
      const { checkSandboxSetup } = await import('../kernel/backends/sandbox.ts');
      await checkSandboxSetup({ settingsFile: settings.sandboxConfig });
    }
    // `from mcptools import results` works before any server is registered.
    const [env] = await Promise.all([
      loadEnvironment(settings.workspace, options.env ?? process.env),
      writeRuntimeModules(settings.workspace),
    ]);
    const logger = options.logger ?? createLogger('ipybox');
    // What earlier runs registered, so the workspace's mcptools/ modules keep working.
    const registry = await ServerRegistry.open(settings.workspace, { env: options.env, logger });
    return new Ipybox(settings, env, logger, registry, options);
  }

  /** The kernel a call reaches: the one its `kernel` argument names, else the caller's own. */
  kernelFor(
    ctx: GateCallContext,
    handle?: string,
    options?: { open?: boolean },
  ): Promise<KernelLease> {
    return this.kernels.reach(kernelCallerOf(ctx), handle, options);
  }

  /** A new kernel of the caller's own, reachable by its handle. */
  newKernel(ctx: GateCallContext): Promise<KernelLease> {
    return this.kernels.openNew(kernelCallerOf(ctx));
  }

  /** Closes the kernels of each session or connection of `server` when it ends. */
  followSessions(server: PluginServer): void {
    this.#stopFollowingSessions();
    this.#stopFollowingSessions = server.onSessionClosed(
      (closed) => void this.kernels.sessionClosed(closed),
    );
  }

  /** Names of the servers registered with `register_mcp_server` (theirs is `mcptools.<name>`). */
  get registeredServers(): string[] {
    return [...this.#servers.keys()];
  }

  /** The params of each registered server, by name (what its tool list depends on). */
  get registrations(): ReadonlyMap<string, UpstreamParams> {
    return this.#servers;
  }

  /** The tools registered server `name` lists now, over a one-off connection (code mode's search). */
  async registeredServerTools(name: string): Promise<Tool[]> {
    const params = this.#servers.get(name);
    if (params === undefined) throw new Error(`no MCP server ${name} is registered`);
    return (await generatorModule()).listToolsOnce(name, params, this.#hostEnv);
  }

  /**
   * Takes on the servers another ipybox of this workspace registered since (the ipybox plugin
   * beside code mode: one workspace, two plugins), read again from the registry file when it
   * changed. Running kernels can call them at once.
   */
  async adoptRegistrations(): Promise<void> {
    const stamp = await stat(this.#registry.file).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    if (stamp === this.#registryStamp) return;
    this.#registryStamp = stamp;
    const current = await ServerRegistry.open(this.settings.workspace, {
      env: this.#registryEnv,
      logger: this.#logger,
    });
    for (const [name, params] of current.servers) {
      if (JSON.stringify(this.#servers.get(name)) === JSON.stringify(params)) continue;
      this.#servers.set(name, params);
      for (const session of await this.kernels.open()) await session.defineServer(name, params);
      this.#logger.info(`ipybox: took on MCP server ${name}, registered by another ipybox`);
    }
  }

  /**
   * Generates `<workspace>/mcptools/<name>/` from the server's tools and lets every session's
   * kernel call it, and remembers it for later runs. Returns the generated module names, and a
   * note when the registration cannot be remembered.
   */
  async registerServer(
    name: unknown,
    rawParams: unknown,
  ): Promise<{ modules: string[]; note?: string }> {
    if (typeof name !== 'string' || !SERVER_NAME.test(name)) {
      throw new Error(
        `server_name must be a name of letters, digits, '_' or '-' (starting with a letter or '_'), got ${JSON.stringify(name)}`,
      );
    }
    if (RUNTIME_MODULES.includes(name)) {
      throw new Error(
        `server_name "${name}" is taken by mcptools.${name} (ipybox's own module, e.g. mcptools.results for stored tool results): pick another name`,
      );
    }
    const params = parseUpstreamParams(rawParams, 'server_params');
    const { generateMcpSources } = await generatorModule();
    const generated = await generateMcpSources(name, params, this.settings.workspace, {
      env: this.#hostEnv,
    });
    this.#servers.set(name, params);
    for (const session of await this.kernels.open()) await session.defineServer(name, params);
    const note = await this.#registry.remember(name, params);
    this.#logger.info(`ipybox: registered MCP server ${name} (${generated.tools.length} tools)`);
    return { modules: generated.tools.map((tool) => tool.module), note };
  }

  /**
   * `pip install` into the workspace venv. When this creates the venv, running kernels add its
   * site-packages (keeping their state) and later kernels start from its interpreter.
   */
  async installPackage(spec: string, options: InstallOptions = {}): Promise<InstallOutcome> {
    const outcome = await this.venv.install(spec, options);
    if (outcome.createdVenv) {
      const site = await this.venv.sitePackages();
      const code = `import site as _ipybox_site\n_ipybox_site.addsitedir(${JSON.stringify(site)})\ndel _ipybox_site`;
      for (const session of await this.kernels.open()) {
        await session.runQuietly(code).catch((error) => {
          this.#logger.warn(`ipybox: could not add the venv to session ${session.id}: ${error}`);
        });
      }
    }
    return outcome;
  }

  async close(): Promise<void> {
    this.#stopFollowingSessions();
    await this.kernels.close();
  }
}
