export { ConfigError } from '../errors.ts';
export { ENVIRONMENT_KEYS } from './environment.ts';
export { interpolateString } from './interpolate.ts';
export {
  applyOverrides,
  type ConfigResult,
  type LoadConfigOptions,
  loadConfig,
  readConfig,
} from './load.ts';
export { DEFAULTS } from './resolve.ts';
export type {
  Config,
  ConfigOverrides,
  LogFormat,
  LogLevel,
  PluginEntry,
  TransportKind,
  WrittenConfig,
} from './types.ts';
export { CODE_MODES, type CodeMode } from './types.ts';
