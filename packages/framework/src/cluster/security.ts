/**
 * Cluster mode's state, installed once at start before any gate, session or token is used:
 * every shared state of this process (the gate's unlocks, failures and lockouts; the OAuth
 * introspection cache) goes to the cluster's signed Redis records, and the keys it signs and
 * seals with (gate handles, `requestState`) become the ones derived from `cluster.secret`.
 *
 * @module
 */
import { installProcessState } from '../state/process.ts';
import type { ClusterLink } from './link.ts';

/** Installs the cluster's state for this process; returns what puts the previous one back. */
export function shareSecurityState(link: ClusterLink): () => void {
  return installProcessState({
    records: link.records,
    keys: link.keys,
    sharedCaches: [link.records],
  });
}
