/**
 * Management command extensions: plugins add commands through `server.proxy.registerCommand`
 * (the anchor documented this but never wired it); REST (`/proxy/command/{name}`), the CLI
 * (`mcp-proxy command NAME`) and the `proxy__command` tool run them.
 *
 * A command belongs to the plugin whose `register()` was running when it was added, and leaves
 * with that plugin on unload or reload.
 *
 * @module
 */
import type { ProxyCommands } from '@mcpbox/framework';
import { errorMessage } from '@mcpbox/framework';

export type CommandHandler = (args: Record<string, unknown>) => unknown | Promise<unknown>;

export interface CommandInfo {
  name: string;
  plugin: string | undefined;
}

export type CommandOutcome =
  | { ok: true; command: string; result: unknown }
  | { ok: false; command: string; error: string; unknown: boolean };

const COMMAND_NAME = /^[A-Za-z0-9][\w.-]*$/;

export class CommandRegistry {
  readonly #commands = new Map<string, { handler: CommandHandler; plugin: string | undefined }>();
  /** The plugin whose `register()` is running; set by the plugin manager around each load. */
  #owner: string | undefined;

  /** The object handed to plugins as `server.proxy`. */
  readonly slot: ProxyCommands = {
    registerCommand: (name, handler) => this.register(name, handler, this.#owner),
  };

  register(name: string, handler: CommandHandler, plugin?: string): void {
    if (!COMMAND_NAME.test(name)) {
      throw new Error(`command name ${JSON.stringify(name)} must be letters, digits, _ . -`);
    }
    if (typeof handler !== 'function')
      throw new Error(`command '${name}': handler is not a function`);
    const existing = this.#commands.get(name);
    if (existing && existing.plugin !== plugin) {
      throw new Error(`command '${name}' is already registered by '${existing.plugin ?? 'proxy'}'`);
    }
    this.#commands.set(name, { handler, plugin });
  }

  /** Runs `task` with `plugin` as the owner of commands registered meanwhile. */
  async ownedBy<T>(plugin: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#owner;
    this.#owner = plugin;
    try {
      return await task();
    } finally {
      this.#owner = previous;
    }
  }

  /** Drops every command a plugin registered. */
  removePlugin(plugin: string): void {
    for (const [name, command] of this.#commands) {
      if (command.plugin === plugin) this.#commands.delete(name);
    }
  }

  /** Commands of one plugin, to restore them if a reload is rolled back. */
  snapshot(plugin: string): Map<string, CommandHandler> {
    const out = new Map<string, CommandHandler>();
    for (const [name, command] of this.#commands) {
      if (command.plugin === plugin) out.set(name, command.handler);
    }
    return out;
  }

  restore(plugin: string, commands: Map<string, CommandHandler>): void {
    this.removePlugin(plugin);
    for (const [name, handler] of commands) this.#commands.set(name, { handler, plugin });
  }

  list(): CommandInfo[] {
    return [...this.#commands]
      .map(([name, { plugin }]) => ({ name, plugin }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  has(name: string): boolean {
    return this.#commands.has(name);
  }

  /** Runs a command; never throws. */
  async run(name: string, args: Record<string, unknown> = {}): Promise<CommandOutcome> {
    const command = this.#commands.get(name);
    if (!command) {
      const known = this.list().map((c) => c.name);
      const hint =
        known.length > 0 ? ` (available: ${known.join(', ')})` : ' (no commands registered)';
      return { ok: false, command: name, error: `Unknown command: ${name}${hint}`, unknown: true };
    }
    try {
      return { ok: true, command: name, result: await command.handler(args) };
    } catch (error) {
      return {
        ok: false,
        command: name,
        error: `Command '${name}' failed: ${errorMessage(error)}`,
        unknown: false,
      };
    }
  }
}
