/**
 * Where the replicas of a cluster find each other's kernels: which kernel a handle names (its
 * secret's digest, its owner, and its id on the shared Jupyter server), which kernel is a
 * caller's default one, when a kernel was last used, and why a closed one is gone. Written once
 * over the framework's `RecordStore` (contract: `kernelDirectory.contract.ts`). One replica
 * alone needs none of it (`Kernels` keeps its own maps): {@link localKernelDirectory}, in
 * memory and not shared, is the default; {@link redisKernelDirectory} shares it through the
 * cluster's Redis, every record signed with the cluster's key.
 *
 * A handle's secret is never stored, only its digest; a default kernel's record keeps its
 * handle, so the replica that attaches can name it in results as the opener did: whoever can
 * read the cluster's Redis can use a default kernel (keep Redis private), but nobody who can
 * only write it can point a handle at a kernel.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { MemoryRecordStore, type RecordStore } from '@mcpbox/framework';
import type { IpyboxSettings } from '../settings.ts';

export interface SharedKernel {
  /** The handle's public id. */
  id: string;
  /** SHA-256 of the handle's secret, hex. */
  digest: string;
  owner: string | undefined;
  /** The kernel's id on the Jupyter server; undefined until its first cell starts it. */
  remoteId: string | undefined;
  /** A default kernel's handle (see the module comment). */
  handle?: string;
  /** Set once it was closed: why, as the end of a sentence ("after 1800 s idle …"). */
  gone?: string;
}

export interface KernelDirectory {
  /** Whether other replicas see it; when not, `Kernels` has nothing to look up or publish. */
  readonly shared: boolean;
  kernel(id: string): Promise<SharedKernel | undefined>;
  /** The id of the default kernel of `home` (a principal), if any replica opened one. */
  homeKernel(home: string): Promise<string | undefined>;
  /** Makes `kernel` reachable from every replica (and, with `home`, its default kernel). */
  publish(kernel: SharedKernel, home?: string): Promise<void>;
  /** Records a use, so the replica that reaps idle kernels spares one used elsewhere. */
  touch(id: string): Promise<void>;
  lastUsed(id: string): Promise<number | undefined>;
  /** Leaves a tombstone in place of the kernel, and forgets `home`'s default if it was this. */
  retire(kernel: SharedKernel, reason: string, home?: string): Promise<void>;
}

/** Kept this long after the last use: longer than any idle timeout, short enough to clean up. */
const RECORD_TTL_MS = 7 * 24 * 3600_000;
/** Tombstones say why a kernel is gone for a day, like a replica's bounded local ones. */
const TOMBSTONE_TTL_MS = 24 * 3600_000;

/**
 * The directory over `records`: shared with the other replicas when the store is the
 * cluster's (signed: a record written by anyone else is refused, so no handle can be made to
 * reach another caller's kernel), this process's own in memory.
 */
export function kernelDirectory(records: RecordStore): KernelDirectory {
  // Principals and sessions as key names would list who uses ipybox to anyone reading keys.
  const homeKey = (home: string) =>
    `ipybox:home:${createHash('sha256').update(home).digest('hex')}`;
  const kernelKey = (id: string) => `ipybox:kernel:${id}`;
  const usedKey = (id: string) => `ipybox:used:${id}`;
  return {
    shared: records.scope === 'cluster',
    async kernel(id) {
      const text = await records.get(kernelKey(id));
      return text === undefined ? undefined : (JSON.parse(text) as SharedKernel);
    },
    async homeKernel(home) {
      return await records.get(homeKey(home));
    },
    async publish(kernel, home) {
      await records.set(kernelKey(kernel.id), JSON.stringify(kernel), RECORD_TTL_MS);
      if (home !== undefined) await records.set(homeKey(home), kernel.id, RECORD_TTL_MS);
    },
    async touch(id) {
      await records.set(usedKey(id), String(Date.now()), RECORD_TTL_MS);
    },
    async lastUsed(id) {
      const text = await records.get(usedKey(id));
      return text === undefined ? undefined : Number(text);
    },
    async retire(kernel, reason, home) {
      const { handle: _, ...rest } = kernel;
      const tombstone: SharedKernel = { ...rest, remoteId: undefined, gone: reason };
      await records.set(kernelKey(kernel.id), JSON.stringify(tombstone), TOMBSTONE_TTL_MS);
      await records.delete(usedKey(kernel.id));
      if (home !== undefined && (await records.get(homeKey(home))) === kernel.id) {
        await records.delete(homeKey(home));
      }
    },
  };
}

/** This process's kernels only: nothing to look up, nothing to publish (the default). */
export const localKernelDirectory: KernelDirectory = kernelDirectory(new MemoryRecordStore());

/** What this module needs of the framework's `ClusterLink`: its signed record store. */
export interface ClusterRecords {
  records: RecordStore;
}

export function redisKernelDirectory(link: ClusterRecords): KernelDirectory {
  return kernelDirectory(link.records);
}

/**
 * The directory of a plugin registration: shared through the host's cluster link when the host
 * gives its plugins one (`server.cluster`), else through a link of our own to `MCP_REDIS_URL`;
 * `undefined` (each replica alone) without a cluster or without `kernel_gateway`.
 */
export async function clusterKernelDirectory(
  server: object,
  settings: IpyboxSettings,
  env: Record<string, string | undefined> = process.env,
): Promise<{ directory: KernelDirectory; close(): Promise<void> } | undefined> {
  if (!settings.kernelGateway) return undefined;
  const hosts = (server as { cluster?: ClusterRecords }).cluster;
  if (hosts) return { directory: redisKernelDirectory(hosts), close: async () => {} };
  const redisUrl = env.MCP_REDIS_URL;
  if (!redisUrl) return undefined;
  const { openCluster } = await import('@mcpbox/framework');
  const link = await openCluster({ redisUrl, name: 'mcpbox', fallback: 'none' }, { env });
  if (!link) return undefined;
  return { directory: redisKernelDirectory(link), close: () => link.close() };
}
