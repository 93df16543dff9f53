/**
 * The principal an `explain` question is about, from what the operator wrote: an id
 * (`sub:alice`, `key:ci`, `local:me`, `anonymous`) and optionally its groups, claims and
 * scopes. An id this proxy served lately starts from that principal as its credentials last
 * presented it (its real groups and claims); what the question gives replaces those parts.
 * An id never seen is made up from the question alone, its kind read from the id's tag.
 *
 * @module
 */
import type { Principal, PrincipalKind, PrincipalsSeen } from '@mcpbox/framework';

export interface PrincipalQuery {
  principal: string;
  groups?: string[];
  claims?: Record<string, unknown>;
  scopes?: string[];
}

/** The id's tag (`sub:` …) → how such a principal authenticated. */
const KIND_OF_TAG: Record<string, PrincipalKind> = {
  sub: 'oauth',
  user: 'oauth',
  client: 'oauth',
  key: 'api_key',
  local: 'local',
};

/** A principal with nothing but its id (and what the id says of it). */
function fromId(id: string): Principal {
  if (id === 'anonymous') return { id, kind: 'anonymous', scopes: [], groups: [], claims: {} };
  const colon = id.indexOf(':');
  const tag = colon > 0 ? id.slice(0, colon) : '';
  const name = id.slice(colon + 1);
  const kind = KIND_OF_TAG[tag] ?? 'oauth';
  return {
    id,
    kind,
    ...(tag === 'client' ? { client: name } : tag ? { subject: name } : {}),
    scopes: [],
    groups: [],
    claims: {},
  };
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;

export function principalFor(
  query: PrincipalQuery,
  seen: PrincipalsSeen,
): { principal: Principal; seen: boolean } {
  const known = seen.principal(query.principal);
  const base = known ?? fromId(query.principal);
  const claims = query.claims ?? base.claims;
  // Groups given win; else a `groups` claim given; else the principal's own.
  const groups =
    query.groups ?? (query.claims ? strings(query.claims.groups) : undefined) ?? base.groups;
  return {
    principal: { ...base, groups, claims, scopes: query.scopes ?? base.scopes },
    seen: known !== undefined,
  };
}
