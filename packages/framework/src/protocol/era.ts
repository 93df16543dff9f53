/**
 * The protocol era, defined once: the 2025-11-25 family ("legacy", negotiated by `initialize`)
 * and 2026-07-28 onwards ("modern", every request carrying the `_meta` envelope).
 *
 * The era is decided at the transport entry — the SDK's stdio and HTTP entries classify the
 * opening exchange or the request and hand the era to the session factory — and a session
 * stamps it on every request's context (`ctx.era`). Handlers read it there; nothing below the
 * entry works it out again. What tests, the bench and the other packages call an era is this
 * type too.
 *
 * @module
 */
import type { ProtocolEra } from '@modelcontextprotocol/server';

/** `'legacy'` for the 2025-11-25 family and earlier, `'modern'` for 2026-07-28 and later. */
export type Era = ProtocolEra;

/** Both eras, oldest first: what a test or a benchmark runs once per era. */
export const ERAS: readonly Era[] = ['legacy', 'modern'];

/** The first protocol version of the modern era. */
export const FIRST_MODERN_VERSION = '2026-07-28';

/** The protocol version a legacy-era request is reported under (the last of its family). */
export const LEGACY_VERSION = '2025-11-25';

/** An era named by its protocol version, as telemetry labels it. */
export type EraVersion = typeof LEGACY_VERSION | typeof FIRST_MODERN_VERSION;

const DATE_VERSION = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The era a protocol version belongs to: versions are dates, which compare as strings; anything
 * that is not a date is no version of either era (undefined).
 */
export function eraOfVersion(version: string): Era | undefined {
  if (!DATE_VERSION.test(version)) return undefined;
  return version < FIRST_MODERN_VERSION ? 'legacy' : 'modern';
}

/** The protocol version an era is reported under. */
export function versionOfEra(era: Era): EraVersion {
  return era === 'modern' ? FIRST_MODERN_VERSION : LEGACY_VERSION;
}
