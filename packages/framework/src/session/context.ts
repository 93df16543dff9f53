/**
 * The context a tool handler receives: the SDK's per-request `extra` plus helpers for progress,
 * logging, sampling and elicitation. Everything is sent with the request's own senders, so over
 * Streamable HTTP it travels on that request's response stream.
 *
 * @module
 */
import {
  type ClientCapabilities,
  CreateMessageResultSchema,
  ElicitResultSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestExtra, ToolContext } from '../plugins/types.ts';

/** Severity order of MCP log levels (RFC 5424), lowest first. */
const SEVERITY: Record<LoggingLevel, number> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** Per-session logging threshold, set by the client with `logging/setLevel`. */
export interface LogThreshold {
  logLevel: LoggingLevel | undefined;
}

export function isLogIgnored(session: LogThreshold, level: LoggingLevel): boolean {
  return session.logLevel !== undefined && SEVERITY[level] < SEVERITY[session.logLevel];
}

/**
 * Adds the helpers to the SDK's `extra` object in place: it is created fresh for each request,
 * and handlers written for `McpServer` keep finding everything where they expect it.
 *
 * `clientCapabilities` is what the client declared at `initialize`: sampling and elicitation are
 * refused with a clear message when it did not declare them (as the SDK's own `createMessage` and
 * `elicitInput` do), instead of a request the client cannot answer.
 */
export function toToolContext(
  extra: RequestExtra,
  session: LogThreshold,
  clientCapabilities: () => ClientCapabilities | undefined,
): ToolContext {
  const ctx = extra as ToolContext;
  ctx.reportProgress = async (progress, total, message) => {
    const progressToken = extra._meta?.progressToken;
    if (progressToken === undefined) return;
    await extra.sendNotification({
      method: 'notifications/progress',
      params: { progressToken, progress, total, message },
    });
  };
  ctx.log = async (level, data, logger) => {
    if (isLogIgnored(session, level)) return;
    await extra.sendNotification({
      method: 'notifications/message',
      params: { level, data, logger },
    });
  };
  ctx.sample = async (params) => {
    if (!clientCapabilities()?.sampling) {
      throw new Error('The client does not support sampling (it declared no sampling capability)');
    }
    return extra.sendRequest(
      { method: 'sampling/createMessage', params },
      CreateMessageResultSchema,
    );
  };
  ctx.elicit = async (params) => {
    const elicitation = clientCapabilities()?.elicitation;
    if (!elicitation) {
      throw new Error(
        'The client does not support elicitation (it declared no elicitation capability)',
      );
    }
    // An empty capability object means form mode (the only mode before 2025-11-25).
    const mode = params.mode ?? 'form';
    const modes = elicitation as { form?: object; url?: object };
    if ((modes.form || modes.url) && !modes[mode]) {
      throw new Error(`The client does not support ${mode} elicitation`);
    }
    return extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
  };
  return ctx;
}
