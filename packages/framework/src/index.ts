/**
 * @mcpbox/framework — build MCP servers from plugins.
 *
 * Any export added here becomes public API: named exports only, no `export *`.
 */
export {
  applyOverrides,
  type Config,
  ConfigError,
  type ConfigOverrides,
  type ConfigResult,
  type LoadConfigOptions,
  type LogFormat,
  type LogLevel,
  loadConfig,
  type PluginEntry,
  readConfig,
  type TransportKind,
  type WrittenConfig,
} from './config/index.ts';
export {
  type HealthRoute,
  type HealthServer,
  type HealthServerOptions,
  PortInUseError,
  type Readiness,
  type ServerStats,
  startHealthServer,
} from './health/index.ts';
export { configureLogging, createLogger, type Logger } from './logging/index.ts';
