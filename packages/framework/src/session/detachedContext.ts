/**
 * The request context a detached call's handler runs with (see `detachedCall.ts`). The handler
 * outlives the request that started it, so its context keeps that request's fields but relays
 * what it sends to whichever request waits on the call now — or, between requests, to the
 * call's idle sink. Kept apart from the call's question bookkeeping: this is only the relay.
 *
 * @module
 */
import type { Notification, ServerContext } from '@modelcontextprotocol/server';
import type { RequestExtra } from '../contract/tool.ts';

/** What the relay reads from its call, each time it sends. */
export interface CallRelay {
  /** The call's signal: aborted by cancellation, never by a request ending normally. */
  readonly signal: AbortSignal;
  /** The request waiting on the call now, if any. */
  waiter(): ServerContext | undefined;
  /** Takes a notification sent while no request waits. */
  idle(notification: Notification): void;
}

/**
 * The first request's fields with `initialMeta`, the call's signal, and notifications sent to
 * the waiting request. A progress notification carries the current request's own progress token
 * (dropped if it has none).
 */
export function relayedContext(
  first: RequestExtra,
  initialMeta: RequestExtra['_meta'],
  relay: CallRelay,
): RequestExtra {
  const notify = relayNotify(relay);
  const mcpReq = relayedMcpReq(first.mcpReq, initialMeta, relay, notify);
  return {
    sessionId: first.sessionId,
    mcpReq,
    http: first.http,
    signal: relay.signal,
    requestId: first.requestId,
    _meta: initialMeta,
    authInfo: first.authInfo,
    sendNotification: notify,
    sendRequest: mcpReq.send,
    closeSSEStream: undefined,
    connectionId: first.connectionId,
    gateHandle: first.gateHandle,
    era: first.era,
    clientCapabilities: first.clientCapabilities,
    principal: first.principal,
    view: first.view,
  };
}

function relayNotify(relay: CallRelay): (notification: Notification) => Promise<void> {
  return async (notification) => {
    const waiter = relay.waiter();
    if (!waiter) {
      relay.idle(notification);
      return;
    }
    if (notification.method === 'notifications/progress') {
      const token = waiter.mcpReq._meta?.progressToken;
      if (token === undefined) return;
      notification = {
        ...notification,
        params: { ...notification.params, progressToken: token },
      };
    }
    await waiter.mcpReq.notify(notification);
  };
}

function relayedMcpReq(
  firstReq: RequestExtra['mcpReq'],
  initialMeta: RequestExtra['_meta'],
  relay: CallRelay,
  notify: (notification: Notification) => Promise<void>,
): ServerContext['mcpReq'] {
  const unavailable = async (): Promise<never> => {
    throw new Error('a call that keeps running asks the client through ctx.elicit/ctx.sample');
  };
  return {
    id: firstReq.id,
    method: firstReq.method,
    envelope: firstReq.envelope,
    get _meta() {
      return relay.waiter()?.mcpReq._meta ?? initialMeta;
    },
    inputResponses: undefined,
    requestState: () => undefined,
    signal: relay.signal,
    send: (async (request: { method: string }) => {
      const waiter = relay.waiter();
      if (!waiter) throw new Error(`no request waits on this call to send ${request.method}`);
      return waiter.mcpReq.send(request as never);
    }) as ServerContext['mcpReq']['send'],
    notify,
    log: async (
      level: Parameters<ServerContext['mcpReq']['log']>[0],
      data: unknown,
      logger?: string,
    ) => {
      const waiter = relay.waiter();
      if (waiter) await waiter.mcpReq.log(level, data, logger);
      else relay.idle({ method: 'notifications/message', params: { level, data, logger } });
    },
    elicitInput: unavailable,
    requestSampling: unavailable,
  } as unknown as ServerContext['mcpReq'];
}
