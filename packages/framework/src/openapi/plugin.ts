/**
 * An HTTP API with an OpenAPI document as a plugin: `openapiPlugin(name, settings)` returns a
 * plugin module whose `register()` reads the document, makes one tool per operation
 * (tools.ts) and registers them; each call builds the operation's request (request.ts), adds
 * the credentials (auth.ts) and sends it (http.ts). Being a plugin, its tools get what every
 * tool gets: prefixes, the gate, policy, limits, logs, metrics, code mode and tool search.
 *
 * A reload reads the document again. A document that cannot be read, or tools that clash, fail
 * the `register()` with a message naming the file and the problem; the registry then keeps
 * serving what it served.
 *
 * @module
 */
import type { Logger } from '../contract/logger.ts';
import type { PluginModule, PluginServer } from '../contract/plugin.ts';
import type { JsonSchemaObject } from '../contract/schema.ts';
import type { ToolContext } from '../contract/tool.ts';
import { errorMessage } from '../errors.ts';
import { OpenApiAuth } from './auth.ts';
import { type ResolvedCredentials, resolveCredentials } from './credentials.ts';
import { type LoadedDocument, loadDocument } from './document.ts';
import { send } from './http.ts';
import { buildRequest } from './request.ts';
import { type OpenApiSettings, parseOpenApiSettings } from './settings.ts';
import { type ToolDefinition, toolsOf } from './tools.ts';

export interface OpenApiPluginOptions {
  env?: Readonly<Record<string, string | undefined>>;
  /** The config's `secrets:` section, for `${secret:NAME}` in `auth:`. */
  secrets?: Record<string, unknown>;
}

export interface OpenApiPlugin extends PluginModule {
  readonly description: string;
  /** Ends the redaction of this plugin's credentials. Idempotent. */
  dispose(): Promise<void>;
}

/**
 * @param raw the entry's `openapi:` value (a mapping, or just the spec).
 * @throws ConfigError naming the wrong key of the settings.
 */
export function openapiPlugin(
  name: string,
  raw: unknown,
  options: OpenApiPluginOptions = {},
): OpenApiPlugin {
  const label = `plugins.${name}.openapi`;
  const settings = parseOpenApiSettings(raw, label);
  let resolved: ResolvedCredentials | undefined;
  return {
    description: `OpenAPI: ${settings.spec}`,
    async register(server: PluginServer) {
      const loaded = await loadDocument(settings.spec, settings.timeoutMs);
      const { tools, skipped } = toolsOf(loaded.document, settings, label);
      const baseUrl = baseUrlOf(loaded, settings, label);
      const credentials = await resolveCredentials(settings.auth, {
        label,
        env: options.env ?? process.env,
        secrets: options.secrets,
        logger: server.logger,
      });
      try {
        const auth = new OpenApiAuth({
          schemes: loaded.document.components?.securitySchemes,
          credentials: credentials.credentials,
          label,
          base: baseUrl,
          timeoutMs: settings.timeoutMs,
        });
        const call = { settings, baseUrl, auth, scrub: credentials.scrub };
        for (const tool of tools) register(server, tool, call);
      } catch (error) {
        credentials.forget();
        throw error;
      }
      // The values of the latest registration are the ones in use.
      resolved?.forget();
      resolved = credentials;
      report(server.logger, loaded.location, tools.length, skipped);
    },
    async dispose() {
      resolved?.forget();
      resolved = undefined;
    },
  };
}

interface CallSetup {
  settings: OpenApiSettings;
  baseUrl: string;
  auth: OpenApiAuth;
  scrub: (text: string) => string;
}

function register(server: PluginServer, tool: ToolDefinition, setup: CallSetup): void {
  const { name, operation, inputSchema, outputSchema, ...listing } = tool;
  server.registerTool<JsonSchemaObject>(
    name,
    { ...listing, inputSchema, ...(outputSchema && { outputSchema }) },
    async (args: Record<string, unknown>, ctx: ToolContext) => {
      const attempt = async () => {
        const request = buildRequest(operation, args, setup.baseUrl);
        await setup.auth.apply(request, operation.security, ctx.signal);
        return send(request, {
          signal: ctx.signal,
          timeoutMs: setup.settings.timeoutMs,
          maxResponseBytes: setup.settings.maxResponseBytes,
          structured: outputSchema !== undefined,
        });
      };
      try {
        let result = await attempt();
        // A token the API refuses (revoked, expired early) is fetched anew, once.
        if (result.isError && /answered 401 /.test(textOf(result)) && operation.security.length) {
          setup.auth.invalidate();
          result = await attempt();
        }
        if (!result.isError) return result;
        return { ...result, content: [{ type: 'text', text: setup.scrub(textOf(result)) }] };
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        return {
          content: [{ type: 'text', text: setup.scrub(`${name}: ${errorMessage(error)}`) }],
          isError: true,
        };
      }
    },
  );
}

function textOf(result: { content?: Array<{ type: string; text?: string }> }): string {
  return result.content?.[0]?.text ?? '';
}

/** `base_url`, else the document's first server (its variables at their defaults). */
function baseUrlOf(loaded: LoadedDocument, settings: OpenApiSettings, label: string): string {
  if (settings.baseUrl) return settings.baseUrl;
  const server = loaded.document.servers?.[0];
  if (!server?.url) {
    throw new Error(`${label}: the document names no server: set ${label}.base_url`);
  }
  let url = server.url;
  for (const [variable, spec] of Object.entries(server.variables ?? {})) {
    url = url.replaceAll(`{${variable}}`, spec.default);
  }
  if (URL.canParse(url)) return url;
  if (/^https?:/.test(loaded.location)) return new URL(url, loaded.location).href;
  throw new Error(
    `${label}: the document's server URL ${JSON.stringify(server.url)} is relative to a file: set ${label}.base_url`,
  );
}

function report(
  logger: Logger,
  location: string,
  count: number,
  skipped: Array<{ what: string; reason: string }>,
): void {
  logger.info(`OpenAPI document ${location}: ${count} tools`);
  for (const { what, reason } of skipped) logger.warn(`OpenAPI ${what}: ${reason}`);
}
