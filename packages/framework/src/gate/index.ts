/**
 * The TOTP gate: a second factor in front of groups of sensitive tools.
 *
 * @example
 * ```ts
 * export function register(server: PluginServer, config: PluginConfig) {
 *   const gate = createGate(config.gate, { logger: server.logger });
 *   gate.registerTools(server);
 *   server.registerTool('shell_exec', { inputSchema: { command: z.string() } },
 *     gate.protect('shell', async ({ command }) => run(command)));
 * }
 * ```
 *
 * @module
 */
export {
  envSecrets,
  fileSecrets,
  parseSecretFile,
  type SecretBackend,
  SecretUnavailableError,
  vaultwardenSecrets,
} from '../secrets/backends.ts';
export { callerKeyOf, type GateCallContext } from './caller.ts';
export {
  type GateGroupSettings,
  type GateSettings,
  parseGateConfig,
  SECRET_BACKENDS,
  type SecretBackendKind,
} from './config.ts';
export {
  createGate,
  displayCallerKey,
  GATE_CHANNEL,
  Gate,
  type GateAnswer,
  type GateEvent,
  type GateGroupSnapshot,
  type GateOptions,
  gateErrorResult,
  MAX_FAILURES,
} from './gate.ts';
export { GATE_HANDLE_ARGUMENT } from './handles.ts';
export {
  GateStateStore,
  type GroupState,
  InMemoryGateStateStore,
  processGateStore,
  type StepClaim,
} from './store.ts';
export { registerGateTools, type ToolRegistrar } from './tools.ts';
