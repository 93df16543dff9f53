/**
 * Makes the SDK's per-message type checks cheap when they fail.
 *
 * The SDK's `Protocol` sorts every incoming JSON-RPC message by trying `isJSONRPCResultResponse`,
 * `isJSONRPCErrorResponse`, `isJSONRPCRequest` and `isJSONRPCNotification` in turn, each a
 * `safeParse` of which only `.success` is read. So a request fails two parses and a notification
 * three. zod 3.25's `zod/v4` (the version this workspace, and any project on zod 3, resolves)
 * builds the whole error for a failed `safeParse` at once: an `Error` subclass with a captured
 * stack and English messages for every issue. Measured over stdio with 8 concurrent echo calls,
 * that was about 40% of the server's CPU per call and most of its garbage; zod 4.x builds the
 * error only when `.error` is read, which is why a server resolving zod 4 looked 2× cheaper.
 *
 * This gives the four schemas the same laziness: a value that cannot match because a required
 * key is missing fails at once, with an `error` getter that runs the real parse when read.
 * Anything else goes to the real parse, so every answer is the same as before.
 *
 * @module
 */
import {
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from '@modelcontextprotocol/sdk/types.js';

type SafeParse = (value: unknown, params?: unknown) => { success: boolean; error?: unknown };

const PATCHED = Symbol.for('@mcpbox/framework/lazyFailingSafeParse');

/** Replaces `schema.safeParse` with one that fails fast when a required key is missing. */
function failFastWithout(schema: object, required: readonly string[]): void {
  const target = schema as { safeParse: SafeParse; [PATCHED]?: true };
  if (target[PATCHED]) return; // a second copy of this module (tests, fresh imports)
  const full = target.safeParse.bind(schema) as SafeParse;
  target.safeParse = (value, params) => {
    if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (required.every((key) => record[key] !== undefined)) return full(value, params);
    }
    let error: unknown;
    return {
      success: false,
      get error() {
        error ??= full(value, params).error;
        return error;
      },
    };
  };
  target[PATCHED] = true;
}

// Each required key is a non-optional field of the strict object schema in the SDK's types.js.
failFastWithout(JSONRPCResultResponseSchema, ['id', 'result']);
failFastWithout(JSONRPCErrorResponseSchema, ['error']);
failFastWithout(JSONRPCRequestSchema, ['id', 'method']);
failFastWithout(JSONRPCNotificationSchema, ['method']);
