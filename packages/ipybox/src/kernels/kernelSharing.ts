/**
 * Cluster mode's side of `Kernels`: kernels on the Jupyter server are published to the kernel
 * directory so any replica runs a caller's cells, retired there (and ended on the server) when
 * closed, and spared by the idle reaper while another replica uses them. Without a Jupyter
 * server (or without a cluster) the directory is the local one and every step is a no-op.
 *
 * @module
 */
import { errorMessage, type Logger } from '@mcpbox/framework';
import {
  type JupyterServerBackend,
  type JupyterServerBackendOptions,
  jupyterServerBackend,
  type SharedRemoteKernel,
} from '../kernel/backends/jupyterServer.ts';
import {
  type KernelDirectory,
  localKernelDirectory,
  type SharedKernel,
} from './kernelDirectory.ts';

/** What sharing needs to know of one of `Kernels`' entries. */
export interface ShareableKernel {
  id: string;
  handle: string;
  digest: Buffer;
  owner: string | undefined;
  /** The caller's default-kernel key this kernel serves, if it is one. */
  home: string | undefined;
  /** The kernel on the shared Jupyter server this entry drives. */
  shared?: SharedRemoteKernel;
}

export class KernelSharing {
  /** The other replicas' kernels (see `kernelDirectory.ts`); the local one until shared. */
  directory: KernelDirectory = localKernelDirectory;
  readonly #logger: Logger;
  /** Ends shared kernels on the Jupyter server (their sessions only let go of them). */
  readonly #gateway: JupyterServerBackend | undefined;

  constructor(gateway: JupyterServerBackendOptions | undefined, logger: Logger) {
    this.#gateway = gateway && jupyterServerBackend(gateway);
    this.#logger = logger;
  }

  /**
   * Kernels on the Jupyter server are shared through `directory`. Kernels on this machine stay
   * local: no other replica could reach them.
   */
  shareThrough(directory: KernelDirectory): void {
    if (this.#gateway) this.directory = directory;
  }

  /** What the other replicas learn of a kernel of this one. */
  #record(entry: ShareableKernel, remoteId: string | undefined): SharedKernel {
    return {
      id: entry.id,
      digest: entry.digest.toString('hex'),
      owner: entry.owner,
      remoteId,
      ...(entry.home !== undefined && { handle: entry.handle }),
    };
  }

  async publish(entry: ShareableKernel, remoteId: string | undefined): Promise<void> {
    try {
      await this.directory.publish(this.#record(entry, remoteId), entry.home);
    } catch (error) {
      this.#logger.warn(
        `ipybox: kernel ${entry.id} is not shared with the other replicas (${errorMessage(error)}); it is reachable through this one`,
      );
    }
  }

  /** Ends a shared kernel for every replica: on the Jupyter server, and in the directory. */
  async retire(entry: ShareableKernel, reason: string): Promise<void> {
    const remoteId = entry.shared?.id;
    if (remoteId !== undefined) await this.#gateway?.endKernel(remoteId);
    await this.directory
      .retire(this.#record(entry, remoteId), reason, entry.home)
      .catch((error) => this.#logger.warn(`ipybox: kernel ${entry.id}: ${errorMessage(error)}`));
  }

  /** Which of these idle-looking kernels another replica used since `since`. */
  async usedElsewhere<E extends ShareableKernel>(entries: E[], since: number): Promise<Set<E>> {
    const used = new Set<E>();
    if (!this.directory.shared) return used;
    await Promise.all(
      entries.map(async (entry) => {
        // Redis away: spare it, rather than end a kernel someone may be using.
        const last = await this.directory.lastUsed(entry.id).catch(() => Date.now());
        if (last !== undefined && last > since) used.add(entry);
      }),
    );
    return used;
  }
}
