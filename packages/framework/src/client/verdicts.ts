/**
 * What each upstream turned out to speak the last time we connected — its protocol era (MCP
 * 2026-07-28 "modern" or 2025-11-25 "legacy") and, over HTTP, Streamable HTTP or the SSE
 * fallback — kept in memory so that the next connect (a crashed stdio upstream restarted, an
 * HTTP session re-opened, a pool reset) skips the `server/discover` probe. On stdio that probe
 * costs a second, short-lived process per connect (the SDK probes on a sibling), so a cached
 * verdict saves a whole server start-up.
 *
 * Freshness (SDK docs, "Caching discovery verdicts"): a cached modern verdict is checked with one
 * `server/discover` on the new connection; a cached legacy verdict would succeed silently against
 * an upgraded server forever, so it is dropped after {@link LEGACY_VERDICT_MAX_AGE_MS}. A verdict
 * that fails is replaced by a fresh probe (`connect.ts`).
 *
 * @module
 */

import type { PriorDiscovery } from '@modelcontextprotocol/client';
import { nodeCrypto } from '../lazy.ts';
import type { UpstreamParams } from './params.ts';

export type TransportKind = 'stdio' | 'streamableHttp' | 'sse';

export interface Verdict {
  /** How the upstream was reached (an HTTP upstream: Streamable HTTP or the SSE fallback). */
  transport: TransportKind;
  /** The era, in the shape the SDK takes back as `connect(transport, { prior })`. */
  prior: PriorDiscovery;
  /** When it was learnt (`Date.now()`). */
  learnt: number;
}

/** After this long a legacy verdict is probed again: an upgrade to 2026-07-28 gets noticed. */
export const LEGACY_VERDICT_MAX_AGE_MS = 60 * 60_000;

/** Verdicts by upstream; one cache may serve many connections (a pool, a proxy's reloads). */
export class VerdictCache {
  readonly #entries = new Map<string, Verdict>();

  get(key: string): Verdict | undefined {
    const verdict = this.#entries.get(key);
    if (
      verdict?.prior.kind === 'legacy' &&
      Date.now() - verdict.learnt > LEGACY_VERDICT_MAX_AGE_MS
    ) {
      this.#entries.delete(key);
      return undefined;
    }
    return verdict;
  }

  set(key: string, verdict: Verdict): void {
    this.#entries.set(key, verdict);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}

/**
 * The cache key of one upstream: a digest of its name and expanded params, so a changed command,
 * URL or credential is a new key (verdicts are never shared across authorization contexts) and
 * no secret is held as a key.
 */
export function verdictKey(name: string, expanded: UpstreamParams): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(name)
    .update('\u0000')
    .update(JSON.stringify(expanded))
    .digest('base64url');
}

/** `2026-07-28 (modern)` / `2025 (legacy)` and the transport, for log lines. */
export function describeVerdict(verdict: Verdict): string {
  const era =
    verdict.prior.kind === 'modern'
      ? `${verdict.prior.discover.supportedVersions.join('/')} (modern)`
      : '2025-11-25 (legacy)';
  return `${era} over ${verdict.transport}`;
}
