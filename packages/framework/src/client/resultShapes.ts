/**
 * How upstream results are taken and handed on: as the upstream sent them (no re-validation, no
 * copy), less the `_meta` keys that describe the upstream's own connection. One place, so that
 * single requests and paged lists check results the same way.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import { isPlainObject } from '../protocol/plainObject.ts';

/**
 * A result schema that hands the upstream's result on as it is — every field, including ones
 * this SDK version does not know — without copying it (a zod passthrough object rebuilt each
 * result on every call). The SDK has checked the JSON-RPC envelope and that the result is an
 * object; `problem` checks what the caller itself relies on.
 */
export function asSent(
  problem: (result: Record<string, unknown>) => string | undefined = () => undefined,
): StandardSchemaV1<unknown, Record<string, unknown>> {
  return {
    '~standard': {
      version: 1,
      vendor: 'mcpbox',
      validate(value) {
        const why = isPlainObject(value) ? problem(value) : 'expected an object';
        return why === undefined
          ? { value: value as Record<string, unknown> }
          : { issues: [{ message: why }] };
      },
    },
  };
}

export const LooseResult = asSent();
export type ResultSchema = typeof LooseResult;

/** `_meta` keys that describe the upstream's connection, not the content: not passed on. */
const PROTOCOL_META_PREFIX = 'io.modelcontextprotocol/';

/**
 * A result without the `_meta` keys that describe the upstream's connection (its `serverInfo`
 * on 2026 results): our own server stamps its own. Everything else stays as sent.
 */
export function withoutProtocolMeta(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta || !Object.keys(meta).some((key) => key.startsWith(PROTOCOL_META_PREFIX))) {
    return result;
  }
  const kept = Object.fromEntries(
    Object.entries(meta).filter(([key]) => !key.startsWith(PROTOCOL_META_PREFIX)),
  );
  const { _meta: _dropped, ...rest } = result;
  return Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest;
}
