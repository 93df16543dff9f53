/**
 * What a plugin gets of its host's cluster (`server.cluster` in cluster mode): the signed shared
 * store, keys and channels under the cluster's prefix, health, and word when Redis comes back.
 * Part of the plugin contract; `cluster/link.ts` (`ClusterLink`) implements it over Redis.
 *
 * @module
 */
import type { RecordStore } from './records.ts';

export interface ClusterStatus {
  /** Both connections are up. */
  connected: boolean;
  /** Why not, when not connected (for `/health/ready`). */
  error?: string;
}

/** One replica's link to its cluster, as a plugin uses it. */
export interface PluginClusterLink {
  /** This replica's name in the cluster. */
  readonly replicaId: string;
  /** Shared state, signed: what every state store of the cluster reads and writes. */
  readonly records: RecordStore;
  /** `<prefix>:<parts…>`: every key and channel of this cluster. */
  key(...parts: string[]): string;
  status(): ClusterStatus;
  /** Delivers messages of `channel` (under the prefix). Returns an unsubscriber. */
  subscribe(channel: string, handler: (message: string) => void): Promise<() => void>;
  /** Publishes on `channel` (under the prefix); rejects while Redis is away. */
  publish(channel: string, message: string): Promise<void>;
  /** Called each time Redis comes back after a loss. Returns a remover. */
  onRestored(listener: () => void): () => void;
}
