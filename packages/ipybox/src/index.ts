/** @mcpbox/ipybox — public API. Named exports only. */
export type { CodeExecutorOptions, ExecuteOptions, StreamOptions } from './executor.ts';
export { CodeExecutor } from './executor.ts';
export type {
  KernelBackend,
  KernelExit,
  KernelStartOptions,
  RunningKernel,
} from './kernel/backend.ts';
export type { KernelChannels, MessageListener } from './kernel/channels.ts';
export type { KernelClientOptions } from './kernel/client.ts';
export { KernelClient } from './kernel/client.ts';
export type { ConnectionInfo, KernelTransport } from './kernel/connectionFile.ts';
export type { KernelErrorCode } from './kernel/errors.ts';
export { CodeExecutionError, KernelError } from './kernel/errors.ts';
export type { ExecutionResult } from './kernel/execution.ts';
export type { ImageMimeType, SavedImage } from './kernel/images.ts';
export type { ZmqKernelBackendOptions } from './kernel/launcher.ts';
export { DEFAULT_PYTHON, zmqKernelBackend } from './kernel/launcher.ts';
export type { ChannelName, JupyterMessage, MimeBundle } from './kernel/messages.ts';
export type { ExecutionChunk, ExecutionOutput } from './kernel/output.ts';
