/**
 * @mcpbox/framework — build MCP servers from plugins.
 *
 * Any export added here becomes public API: named exports only, no `export *`.
 */

// Plugin API, catalog and registry.
export { completable, ResourceTemplate } from '@modelcontextprotocol/server';
export { AccessControl, type Explanation } from './access/access.ts';
export { type ApprovalNeed, PolicyError } from './access/policy.ts';
export { PrincipalsSeen, type SeenPrincipal } from './access/seen.ts';
export { type AccessSettings, parseAccessSettings } from './access/settings.ts';
export type { ToolSubject } from './access/views.ts';
export {
  type ApprovalAnswer,
  type ApprovalDesk,
  type ApprovalSubject,
  type ApproverKind,
  GRANT_META_KEY,
  type Grant,
  GrantBook,
  type GrantRefusal,
  type GrantTaking,
  OperatorDesk,
  type PendingApproval,
} from './approvals/index.ts';
export { processGrants } from './approvals/processGrants.ts';
export {
  ApprovalSocket,
  type ApprovalSocketOptions,
  approveParams,
  refuseUpgrade,
  type SocketDesk,
} from './approvals/socket.ts';
export {
  AUDIT_META_KEY,
  type AuditDecision,
  type AuditEntry,
  type AuditKind,
  AuditLog,
  type AuditLogOptions,
  type AuditRecord,
  type AuditRecorder,
  AuditTrail,
  type AuditVerification,
  argsDigest,
  recordId,
  verifyAuditLog,
} from './audit/index.ts';
export {
  API_KEY_NAME,
  type ApiKey,
  ApiKeys,
  type AppLike,
  apiKeyMiddleware,
  CONFIG_SETTING_NAMES,
  checkCredentialEndpoint,
  checkUnauthenticatedBind,
  createOAuth,
  type ExposureRemedies,
  type HttpMiddleware,
  IntrospectionTokenVerifier,
  type KeyChanges,
  newApiKey,
  type OAuth,
  type OAuthConfig,
  type OAuthOptions,
  type OAuthRejectionReason,
  type OAuthSettingNames,
  parseApiKeys,
  type UnauthenticatedBind,
  UnauthenticatedBindError,
} from './auth/index.ts';
export { parseTokenExchange, type TokenExchangeSettings } from './auth/tokenExchange.ts';
export { Catalog } from './catalog/catalog.ts';
export { isPrivileged, PRIVILEGED_META_KEY } from './catalog/privileged.ts';
export { splitWords, ToolSearchIndex } from './catalog/search.ts';
export {
  type ToolCall,
  ToolCallDispatcher,
  type ToolCallInterceptor,
  toolError,
} from './catalog/toolCalls.ts';
export {
  CODE_MODE_PLUGIN,
  DEFER_LOADING_META_KEY,
  type ToolListing,
  type ToolListingOptions,
  toolListing,
} from './catalog/toolListing.ts';
export type {
  CatalogBatch,
  CatalogKind,
  Collision,
  PromptEntry,
  ResourceEntry,
  ResourceTemplateEntry,
  ToolEntry,
} from './catalog/types.ts';
// MCP client side: connections to upstream MCP servers (mirroring, ipybox's tool server).
export {
  type CallOptions,
  type ListKind,
  UpstreamConnection,
  type UpstreamConnectionOptions,
} from './client/connection.ts';
export { UpstreamError, type UpstreamErrorCode } from './client/errors.ts';
export {
  describeUpstream,
  type HttpUpstreamParams,
  parseUpstreamParams,
  type StdioUpstreamParams,
  type UpstreamParams,
  upstreamParamsSchema,
} from './client/params.ts';
export { UpstreamPool } from './client/pool.ts';
export { processGroupGuardAvailable } from './client/stdioLaunch.ts';
export {
  ClusterConfigError,
  ClusterLink,
  type ClusterMembership,
  type ClusterSettings,
  type ClusterStatus,
  ClusterUnavailableError,
  joinCluster,
  openCluster,
  redactRedisUrl,
  shareSecurityState,
} from './cluster/index.ts';
export {
  applyOverrides,
  CODE_MODES,
  type CodeMode,
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
  type ConfigPath,
  type InterpolationIssue,
  interpolateTree,
} from './config/interpolate.ts';
export type {
  AdminAction,
  AdminColumn,
  AdminRow,
  AdminSection,
  AdminSurface,
  AdminValue,
  PublishedAdmin,
} from './contract/admin.ts';
export type {
  CallVia,
  CatalogSearchHit,
  CatalogToolInfo,
  CatalogView,
} from './contract/catalogView.ts';
export type {
  PluginConfig,
  PluginModule,
  PluginServer,
  PromptConfig,
  PromptHandler,
  ProxyCommands,
  ReadResourceHandler,
  ReadResourceTemplateHandler,
  RegisteredPrompt,
  RegisteredResource,
  RegisteredTool,
  ResourceMetadata,
} from './contract/plugin.ts';
export type { Principal, PrincipalKind } from './contract/principal.ts';
export type { JsonSchemaObject, SchemaLike } from './contract/schema.ts';
export type { ClosedSession } from './contract/session.ts';
// Skills (SEP-2640): the served set, by origin (`server.skills`).
export type { SkillOrigins } from './contract/skillOrigins.ts';
export type {
  InputOptions,
  KeepsRunning,
  RequestExtra,
  ToolConfig,
  ToolContext,
  ToolHandler,
  ToolReturn,
} from './contract/tool.ts';
export { errorMessage, McpboxError, type McpboxErrorCode } from './errors.ts';
export { findProgram } from './findProgram.ts';
export {
  callerKeyOf,
  createGate,
  displayCallerKey,
  Gate,
  type GateAnswer,
  type GateCallContext,
  type GateGroupSnapshot,
  type GateOptions,
  type GateSettings,
  parseGateConfig,
  type SecretBackend,
  SecretUnavailableError,
} from './gate/index.ts';
export {
  type HealthRoute,
  type HealthServer,
  type HealthServerOptions,
  PortInUseError,
  type Readiness,
  type ServerStats,
  startHealthServer,
} from './health/index.ts';
// What every HTTP listener shares (mcp-proxy's management API, ipybox): loopback, DNS rebinding, JSON.
export { isLoopbackHost, type RebindingCheck, rebindingCheck, sendJson } from './http/index.ts';
export { lazyRequire } from './lazy.ts';
// Limits keyed on identity: the console reads `server.limits.usage(principal)`.
export {
  type BudgetUsage,
  LIMIT_EXCEEDED,
  Limiter,
  type LimitRefusal,
  type LimitSettings,
  type PrincipalUsage,
  parseLimitSettings,
} from './limits/index.ts';
export { configureLogging, createLogger, type Logger } from './logging/index.ts';
export { ServerMetrics, type ServerMetricsOptions, type ToolCallOutcome } from './metrics/index.ts';
// HTTP APIs with an OpenAPI document as plugins.
export { inspectOpenApi, renderInspection } from './openapi/inspect.ts';
export {
  type OpenApiPlugin,
  type OpenApiPluginOptions,
  openapiPlugin,
} from './openapi/plugin.ts';
export {
  definitionOf,
  fingerprint,
  MAX_DEFINITION_BYTES,
  type PinBoard,
  PinBook,
  type PinBookOptions,
  type PinDiff,
  type PinKind,
  type PinMode,
  type PinnedDefinition,
  type PinSettings,
  type PinState,
  type PinStatus,
  type PinTarget,
} from './pins/index.ts';
export {
  type AvailablePlugin,
  importPluginSource,
  isPluginPath,
  listAvailablePlugins,
  type PluginSource,
  pluginModuleOf,
  pluginNameOfPath,
  resolvePlugin,
} from './plugins/load.ts';
export { PluginRegistry } from './plugins/registry.ts';
export type {
  LoadedPlugin,
  LoadOptions,
  LoadResult,
  PluginRegistryOptions,
  PluginSummary,
  RegistrySummary,
  UnloadResult,
} from './plugins/registryTypes.ts';
export { pluginList, pluginStatus, type StatusInfo, toolList } from './plugins/text.ts';
export {
  type UpstreamPlugin,
  type UpstreamPluginOptions,
  upstreamPlugin,
} from './plugins/upstream.ts';
export type { UpstreamCredentialSettings } from './plugins/upstreamCredentials.ts';
export { type SkillOffers, upstreamSkillOrigins } from './plugins/upstreamSkillOrigins.ts';
export { skillPrefix, UpstreamSkills } from './plugins/upstreamSkills.ts';
export {
  ERAS,
  type Era,
  type EraVersion,
  eraOfVersion,
  FIRST_MODERN_VERSION,
  LEGACY_VERSION,
  versionOfEra,
} from './protocol/era.ts';
// Results by reference: large tool results stored for their caller, previewed for the model.
export {
  type PreviewLimits,
  parseResultPreview,
  RESULT_META_KEY,
  RESULTS_QUERY_TOOL,
  RESULTS_SCHEME,
  type ResultPreviewSettings,
  ResultStore,
  ResultUnavailableError,
  resultOwner,
  type StoredResult,
} from './results/index.ts';
export { parseSecretsConfig } from './secrets/settings.ts';
export {
  createSecurity,
  type PreCallValidator,
  type Security,
  type SecurityConfig,
  type SecurityOptions,
  type SecurityTarget,
} from './security.ts';
export {
  BUILTIN_PLUGIN,
  createServer,
  type McpboxServer,
  type ServerOptions,
  serverOptionsFromConfig,
} from './server.ts';
export { isAppOnly } from './session/appOnlyTools.ts';
export { InputTimeoutError } from './session/detachedCall.ts';
export { SessionHub } from './session/hub.ts';
export { McpSession } from './session/session.ts';
export type { ServerCounters } from './session/stats.ts';
export { createShutdown, type ShutdownOptions } from './shutdown.ts';
export { type Route as SkillRoute, skillRoot } from './skills/combined.ts';
export { SkillRegistry, type SkillRegistryOptions } from './skills/registry.ts';
export { SKILLS_OWNER } from './skills/serve.ts';
export type {
  ServedSkill,
  ShadowedSkill,
  Skill,
  SkillOrigin,
  SkillOriginFrom,
  SkillOriginInfo,
  SkillOriginKind,
  SkillOriginReport,
  SkillSource,
  SkillsChange,
  SkillWarning,
} from './skills/types.ts';
// Shared state: one seam (RecordStore), in memory or in the cluster's Redis (signed).
export {
  GateStateStore,
  MemoryRecordStore,
  type RecordChange,
  type RecordStore,
  type ReplicaReport,
  SharedPluginSet,
  type SharedPlugins,
  type StateScope,
  UnverifiedRecordError,
} from './state/index.ts';
// OpenTelemetry traces: off (and the SDK not loaded) unless configured.
export {
  type Carrier,
  currentTraceContext,
  inSpan,
  type OtelConfig,
  REQUEST_CHANNEL,
  type RequestEvent,
  type SpanSpec,
  tracingEnabled,
} from './telemetry/index.ts';
export {
  type CallDetails,
  type CallOutcome,
  CompositeToolLogger,
  JsonlToolLogger,
  type JsonlToolLoggerOptions,
  REDACTED,
  type RedactionSettings,
  Redactor,
  redactText,
  redactValue,
  type TappedCall,
  TextToolLogger,
  type TextToolLoggerOptions,
  ToolCallTap,
  type ToolCallTapOptions,
  type ToolLogger,
  TranscriptLogger,
  type TranscriptLoggerOptions,
} from './toollog/index.ts';
export { reserveStdoutForProtocol } from './transports/stdio.ts';
