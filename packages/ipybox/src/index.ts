/** @mcpbox/ipybox — public API. Named exports only. */

export type { ApprovalClientOptions } from './approval/approvalClient.ts';
export { ApprovalClient } from './approval/approvalClient.ts';
// Tool calls from kernel code: generated Python API, tool server, approval.
export type { ApprovalGateOptions, ApprovalPolicy } from './approval/approvalGate.ts';
export { ApprovalDeniedError, ApprovalGate } from './approval/approvalGate.ts';
export { ApprovalQueue } from './approval/approvalQueue.ts';
export type { ApprovalOutcome, Approver, ToolCall } from './approval/approvalRequest.ts';
export { ApprovalRequest } from './approval/approvalRequest.ts';
export { type ServeIpyboxOptions, serveIpybox } from './cli/serve.ts';
// Code mode: the whole catalog as search_tools + execute_code (`mcp-factory --code-mode on`).
export {
  description as codeModePluginDescription,
  register as registerCodeModePlugin,
} from './codemode/plugin.ts';
export type { CodeExecutorOptions, ExecuteOptions, StreamOptions } from './executor.ts';
export { CodeExecutor } from './executor.ts';
export type {
  KernelBackend,
  KernelExit,
  KernelStartOptions,
  RunningKernel,
} from './kernel/backends/backend.ts';
export type { JupyterServerBackendOptions } from './kernel/backends/jupyterServer.ts';
export { jupyterServerBackend } from './kernel/backends/jupyterServer.ts';
// The OS sandbox around kernels and stdio MCP servers (sandbox-runtime, Linux).
export type { SandboxKernelBackendOptions } from './kernel/backends/sandbox.ts';
export { checkSandboxSetup, sandboxKernelBackend } from './kernel/backends/sandbox.ts';
export type { ZmqKernelBackendOptions } from './kernel/backends/zeromq.ts';
export { DEFAULT_PYTHON, zmqKernelBackend } from './kernel/backends/zeromq.ts';
export { TimeoutBudget } from './kernel/budget.ts';
export type { KernelChannels, MessageListener } from './kernel/channels.ts';
export type { KernelClientOptions } from './kernel/client.ts';
export { KernelClient } from './kernel/client.ts';
export type { ConnectionInfo, KernelTransport } from './kernel/connectionFile.ts';
export type { KernelErrorCode } from './kernel/errors.ts';
export { CodeExecutionError, KernelError } from './kernel/errors.ts';
export type { ExecutionResult } from './kernel/execution.ts';
export type { ImageMimeType, SavedImage } from './kernel/images.ts';
export type { ChannelName, JupyterMessage, MimeBundle } from './kernel/messages.ts';
export type { ExecutionChunk, ExecutionOutput } from './kernel/output.ts';
export type { GeneratedSources, GenerateOptions } from './mcptools/generate.ts';
export { generateMcpSources } from './mcptools/generate.ts';
export type { GeneratedTool, RenderedPackage, ToolDefinition } from './mcptools/renderPackage.ts';
export { renderPackage, renderToolModule } from './mcptools/renderPackage.ts';
// The ipybox MCP server: as a plugin (`mcp-factory -p ipybox`) and as the `ipybox` command.
export {
  closeAll as closeIpyboxPlugins,
  description as ipyboxPluginDescription,
  register as registerIpyboxPlugin,
} from './plugin.ts';
export { sandboxStdioServer } from './sandbox/mcpServerSandbox.ts';
export type { SandboxHost } from './sandbox/preflight.ts';
export {
  checkSandboxHost,
  SANDBOX_INSTALL_HINT,
  SandboxUnavailableError,
} from './sandbox/preflight.ts';
export type { SandboxSettings } from './sandbox/sandboxConfig.ts';
export {
  loadSandboxConfig,
  SandboxConfigError,
  validateSandboxSettings,
} from './sandbox/sandboxConfig.ts';
export { Ipybox, type IpyboxOptions } from './server/ipybox.ts';
export { type IpyboxSettings, parseSettings, type WrittenSettings } from './settings.ts';
export type {
  ToolCallErrorType,
  ToolCallReply,
  ToolConnection,
  ToolConnections,
} from './toolserver/runToolCall.ts';
export type { ToolServerOptions } from './toolserver/toolServer.ts';
export { TOOL_SERVER_ENV, TOOL_SERVER_TOKEN_ENV, ToolServer } from './toolserver/toolServer.ts';
