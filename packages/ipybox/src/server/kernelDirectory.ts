/**
 * Where the replicas of a cluster find each other's kernels: which kernel a handle names (its
 * secret's digest, its owner, and its id on the shared Jupyter server), which kernel is a
 * caller's default one, when a kernel was last used, and why a closed one is gone. One replica
 * alone needs none of it (`Kernels` keeps its own maps): {@link localKernelDirectory} is the
 * default; {@link redisKernelDirectory} shares it through the cluster's Redis.
 *
 * A handle's secret is never stored, only its digest; a default kernel's record keeps its
 * handle, so the replica that attaches can name it in results as the opener did (Redis already
 * holds the cluster's secrets, e.g. the `requestState` sealing key).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { IpyboxSettings } from './settings.ts';

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
  /** False for the local default: nothing to look up, nothing to publish. */
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

export const localKernelDirectory: KernelDirectory = {
  shared: false,
  kernel: async () => undefined,
  homeKernel: async () => undefined,
  publish: async () => {},
  touch: async () => {},
  lastUsed: async () => undefined,
  retire: async () => {},
};

/** What this module needs of the framework's `ClusterLink`. */
export interface RedisLink {
  redis: {
    get(key: string): Promise<string | null>;
    set(key: string, value: string, mode: 'PX', ms: number): Promise<unknown>;
    del(key: string): Promise<unknown>;
  };
  key(...parts: string[]): string;
}

/** Kept this long after the last use: longer than any idle timeout, short enough to clean up. */
const RECORD_TTL_MS = 7 * 24 * 3600_000;
/** Tombstones say why a kernel is gone for a day, like a replica's bounded local ones. */
const TOMBSTONE_TTL_MS = 24 * 3600_000;

export function redisKernelDirectory(link: RedisLink): KernelDirectory {
  // Principals and sessions as key names would list who uses ipybox to anyone reading keys.
  const homeKey = (home: string) =>
    link.key('ipybox', 'home', createHash('sha256').update(home).digest('hex'));
  const kernelKey = (id: string) => link.key('ipybox', 'kernel', id);
  const usedKey = (id: string) => link.key('ipybox', 'used', id);
  return {
    shared: true,
    async kernel(id) {
      const text = await link.redis.get(kernelKey(id));
      return text === null ? undefined : (JSON.parse(text) as SharedKernel);
    },
    async homeKernel(home) {
      return (await link.redis.get(homeKey(home))) ?? undefined;
    },
    async publish(kernel, home) {
      await link.redis.set(kernelKey(kernel.id), JSON.stringify(kernel), 'PX', RECORD_TTL_MS);
      if (home !== undefined) await link.redis.set(homeKey(home), kernel.id, 'PX', RECORD_TTL_MS);
    },
    async touch(id) {
      await link.redis.set(usedKey(id), String(Date.now()), 'PX', RECORD_TTL_MS);
    },
    async lastUsed(id) {
      const text = await link.redis.get(usedKey(id));
      return text === null ? undefined : Number(text);
    },
    async retire(kernel, reason, home) {
      const { handle: _, ...rest } = kernel;
      const tombstone: SharedKernel = { ...rest, remoteId: undefined, gone: reason };
      await link.redis.set(kernelKey(kernel.id), JSON.stringify(tombstone), 'PX', TOMBSTONE_TTL_MS);
      await link.redis.del(usedKey(kernel.id));
      if (home !== undefined && (await link.redis.get(homeKey(home))) === kernel.id) {
        await link.redis.del(homeKey(home));
      }
    },
  };
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
  const hosts = (server as { cluster?: RedisLink }).cluster;
  if (hosts) return { directory: redisKernelDirectory(hosts), close: async () => {} };
  const redisUrl = env.MCP_REDIS_URL;
  if (!redisUrl) return undefined;
  const { openCluster } = await import('@mcpbox/framework');
  const link = await openCluster({ redisUrl, name: 'mcpbox', fallback: 'none' });
  if (!link) return undefined;
  return { directory: redisKernelDirectory(link), close: () => link.close() };
}
