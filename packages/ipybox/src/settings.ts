/**
 * The ipybox plugin's settings: what a user writes under `plugins.ipybox:` in a YAML config (or
 * the `ipybox` CLI passes), validated, with defaults, and resolved to absolute paths.
 *
 * @module
 */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { interpreterPath } from './kernel/pythonProbe.ts';

/** `channel`: approval clients decide (a WebSocket `ApprovalClient`, mcp-proxy's console). */
export const APPROVAL_MODES = ['auto', 'elicit', 'deny', 'channel'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

const seconds = z.number().positive('must be a positive number of seconds');

/** The variable a kernel gateway's token may come from (so it need not be written in a file). */
export const KERNEL_GATEWAY_TOKEN_ENV = 'IPYBOX_KERNEL_GATEWAY_TOKEN';

const httpUrl = (what: string) =>
  z.string().refine((value) => /^https?:\/\/[^/?#\s]+/.test(value) && URL.canParse(value), {
    message: `must be the ${what}'s http:// or https:// URL`,
  });

/** Scheme and host only: each kernel's tool server listens on a port of its own on that host. */
const toolServerUrl = z.string().refine(
  (value) => {
    if (!URL.canParse(value)) return false;
    const url = new URL(value);
    return url.protocol === 'http:' && url.port === '' && ['', '/'].includes(url.pathname);
  },
  {
    message:
      'must be http://HOST, the address of this machine as the kernels see it (no port: each kernel gets its own tool server port)',
  },
);

/** The config as written (snake_case, all optional). */
export const writtenSettingsSchema = z
  .object({
    workspace: z.string().min(1, 'must not be empty').optional(),
    python: z.string().min(1, 'must not be empty').optional(),
    approval: z.enum(APPROVAL_MODES).optional(),
    approval_timeout: seconds.optional(),
    allow_privileged_tools: z.boolean().optional(),
    max_kernels: z.number().int().positive('must be at least 1').optional(),
    kernel_idle_timeout: seconds.optional(),
    sandbox: z.boolean().optional(),
    sandbox_config: z.string().min(1, 'must not be empty').optional(),
    kernel_gateway: z
      .object({
        url: httpUrl('Jupyter Server or Kernel Gateway'),
        token: z.string().min(1, 'must not be empty').optional(),
      })
      .strict()
      .optional(),
    tool_server_url: toolServerUrl.optional(),
    tool_server_bind: z.string().min(1, 'must not be empty').optional(),
    max_output_chars: z.number().int().positive('must be at least 1').optional(),
    // A result is one JSON-RPC message; the SDK's stdio transport drops one over 10 MB.
    max_output_chars_limit: z
      .number()
      .int()
      .positive('must be at least 1')
      .max(2_000_000, 'must be at most 2000000 (a larger result may not fit one MCP message)')
      .optional(),
  })
  .strict();

export type WrittenSettings = z.infer<typeof writtenSettingsSchema>;

export interface IpyboxSettings {
  /** Absolute; created if missing. Default `./workspace` for the plugin. */
  workspace: string;
  /** `<workspace>/images`: where images from cells are saved. */
  imagesDir: string;
  /** Interpreter with ipykernel that creates the workspace venv. Default `/usr/bin/python3`. */
  basePython: string;
  approval: ApprovalMode;
  /** No limit when undefined. */
  approvalTimeoutMs: number | undefined;
  /**
   * Kernel code may call privileged tools (`register_mcp_server`, `install_package`, ...: they
   * run programs on the host, outside the sandbox), each after an approval. Default false.
   */
  allowPrivilegedTools: boolean;
  maxKernels: number;
  kernelIdleTimeoutMs: number;
  sandbox: boolean;
  sandboxConfig: string | undefined;
  /** Kernels run on this Jupyter Server / Kernel Gateway instead of this machine. */
  kernelGateway: { url: string; token: string | undefined } | undefined;
  /** Where kernel code reaches the tool servers: bind address, and host as the kernels see it. */
  toolServer: { bind: string; advertisedHost: string };
  /** `max_output_chars` of a call that gives none. */
  maxOutputChars: number;
  /** The most `max_output_chars` a call may ask for (larger values are lowered to it). */
  maxOutputCharsLimit: number;
}

export const DEFAULT_MAX_KERNELS = 4;
export const DEFAULT_MAX_OUTPUT_CHARS = 5000;
export const DEFAULT_MAX_OUTPUT_CHARS_LIMIT = 200_000;

/** Keys of a `plugins:` entry that belong to the framework (loading), not to ipybox. */
const FRAMEWORK_KEYS = new Set(['enabled', 'prefix', 'path', 'description']);
export const DEFAULT_KERNEL_IDLE_TIMEOUT_S = 1800;

/**
 * Validates `config`; throws one `Error` naming every bad key (`plugins.ipybox.max_kernels: …`).
 * Paths are resolved against `cwd`.
 */
export function parseSettings(
  config: Record<string, unknown>,
  {
    cwd = process.cwd(),
    defaultWorkspace = 'workspace',
    env = process.env as Record<string, string | undefined>,
  } = {},
): IpyboxSettings {
  const own = Object.fromEntries(
    Object.entries(config).filter(([key]) => !FRAMEWORK_KEYS.has(key)),
  );
  const parsed = writtenSettingsSchema.safeParse(own);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const keys = issue.code === 'unrecognized_keys' ? ` ${issue.keys.join(', ')}` : '';
      return `plugins.ipybox${issue.path.length > 0 ? `.${issue.path.join('.')}` : ''}: ${issue.message}${keys}`;
    });
    throw new Error(`invalid ipybox settings: ${problems.join('; ')}`);
  }
  const written = parsed.data;
  const maxOutputCharsLimit = written.max_output_chars_limit ?? DEFAULT_MAX_OUTPUT_CHARS_LIMIT;
  const maxOutputChars = written.max_output_chars ?? DEFAULT_MAX_OUTPUT_CHARS;
  if (maxOutputChars > maxOutputCharsLimit) {
    throw new Error(
      `invalid ipybox settings: plugins.ipybox.max_output_chars (${maxOutputChars}) is above max_output_chars_limit (${maxOutputCharsLimit}); lower it or raise the limit`,
    );
  }
  const sandbox = written.sandbox ?? false;
  if (written.kernel_gateway && (sandbox || written.sandbox_config !== undefined)) {
    throw new Error(
      'invalid ipybox settings: plugins.ipybox.kernel_gateway runs kernels on another server, where the sandbox (sandbox, sandbox_config) cannot confine them; use one or the other',
    );
  }
  const workspace = resolve(cwd, written.workspace ?? defaultWorkspace);
  return {
    workspace,
    imagesDir: join(workspace, 'images'),
    basePython: interpreterPath(written.python, cwd),
    approval: written.approval ?? 'auto',
    approvalTimeoutMs:
      written.approval_timeout === undefined ? undefined : written.approval_timeout * 1000,
    allowPrivilegedTools: written.allow_privileged_tools ?? false,
    maxKernels: written.max_kernels ?? DEFAULT_MAX_KERNELS,
    kernelIdleTimeoutMs: (written.kernel_idle_timeout ?? DEFAULT_KERNEL_IDLE_TIMEOUT_S) * 1000,
    sandbox,
    sandboxConfig:
      written.sandbox_config === undefined ? undefined : resolve(cwd, written.sandbox_config),
    maxOutputChars,
    maxOutputCharsLimit,
    kernelGateway: written.kernel_gateway && {
      url: written.kernel_gateway.url.replace(/\/+$/, ''),
      token: written.kernel_gateway.token ?? (env[KERNEL_GATEWAY_TOKEN_ENV] || undefined),
    },
    toolServer: toolServerAddress(written.tool_server_url, written.tool_server_bind),
  };
}

/** Loopback unless configured; the bind address defaults to the advertised host. */
function toolServerAddress(url: string | undefined, bind: string | undefined) {
  // URL keeps an IPv6 host in brackets; listen() wants it bare.
  const advertisedHost = url === undefined ? '127.0.0.1' : new URL(url).hostname;
  return { bind: bind ?? advertisedHost.replace(/^\[(.*)\]$/, '$1'), advertisedHost };
}
