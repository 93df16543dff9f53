/**
 * The context a tool handler receives: the SDK's per-request `extra` plus helpers for progress,
 * logging, sampling and elicitation. Everything is sent with the request's own senders, so over
 * Streamable HTTP it travels on that request's response stream.
 *
 * @module
 */
import {
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
 */
export function toToolContext(extra: RequestExtra, session: LogThreshold): ToolContext {
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
  ctx.sample = (params) =>
    extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema);
  ctx.elicit = (params) =>
    extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
  return ctx;
}
