/** @mcpbox/proxy — public API. Named exports only. */
export {
  describeNewPlugin,
  NewPluginError,
  type NewPluginErrorCode,
  type NewPluginOptions,
  type NewPluginResult,
  newPlugin,
} from './commands/newPlugin.ts';
export {
  ManagementClient,
  type ManagementClientOptions,
  ManagementRequestError,
  ManagementUnauthorizedError,
  ManagementUnavailableError,
  probeManagementPort,
} from './management/client.ts';
export {
  ManagementPortInUseError,
  type ManagementServer,
  type ManagementServerOptions,
  startManagementServer,
} from './management/server.ts';
export { type ProxyStatus, statusJson } from './operations/status.ts';
export { type CommandHandler, type CommandInfo, CommandRegistry } from './proxy/commands.ts';
export {
  type AvailableEntry,
  type ManagerEvent,
  PluginManager,
  type PluginManagerOptions,
} from './proxy/manager.ts';
export { PluginWatcher, type PluginWatcherOptions } from './proxy/watch.ts';
export {
  MANAGEMENT_PLUGIN,
  type ManagementToolsOptions,
  managementTools,
} from './tools/managementTools.ts';
