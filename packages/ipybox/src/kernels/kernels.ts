/**
 * `Kernels`: every kernel of one ipybox server, and which caller reaches which.
 *
 * Each kernel has a server-minted handle (`kernelHandles.ts`) and an owner (`kernelCaller.ts`);
 * what a caller hears when no kernel can be reached is in `kernelErrors.ts`, and how kernels are
 * shared with a cluster's other replicas in `kernelSharing.ts`.
 * A call that names no kernel reaches its caller's default kernel — its 2025 session's, its
 * stdio connection's or its OAuth principal's — opened on first use; a caller with none of these
 * (an unauthenticated 2026 HTTP request) gets a new kernel and its handle instead of anyone
 * else's. A call that names a kernel reaches it only with a handle we minted, for the owner
 * that opened it.
 *
 * At most `maxKernels` exist at once (a clear error past it). A kernel idle for
 * `kernelIdleTimeoutMs` is closed (a stdio connection's default kernel excepted: it ends with the
 * connection); a 2025 session's or connection's kernels close when it ends. A closed kernel
 * leaves a tombstone, so a caller who comes back hears that its state is gone and why, instead
 * of running its cell in a fresh kernel.
 *
 * @module
 */
import { createLogger, type Logger } from '@mcpbox/framework';
import { ApprovalBoard } from '../approval/approvalBoard.ts';
import type { SharedRemoteKernel } from '../kernel/backends/jupyterServer.ts';
import { type KernelCaller, keysOfClosed } from './kernelCaller.ts';
import type { KernelDirectory } from './kernelDirectory.ts';
import {
  goneKernelError,
  KernelLimitError,
  noOwnKernelError,
  otherOwnerError,
  ownKernelGoneError,
  unknownHandleError,
} from './kernelErrors.ts';
import { mintKernelHandle, parseKernelHandle, sameSecret } from './kernelHandles.ts';
import type { KernelSession, KernelSessionContext } from './kernelSession.ts';
import { KernelSharing } from './kernelSharing.ts';
import { type Tombstone, Tombstones } from './kernelTombstones.ts';

/** Tombstones kept (of handles, and of default kernels), oldest dropped first. */
const TOMBSTONES = 1000;

/** What a call reached. */
export interface KernelLease {
  session: KernelSession;
  /** The handle that names this kernel (`kernel=` of later calls). */
  handle: string;
  /** True when this call opened the kernel. */
  opened: boolean;
  /** True when the caller can reach this kernel again only with its handle (no default). */
  handleNeeded: boolean;
}

interface Entry {
  id: string;
  handle: string;
  digest: Buffer;
  owner: string | undefined;
  /** The caller's default-kernel key this kernel serves, if it is one. */
  home: string | undefined;
  reapWhenIdle: boolean;
  opening: Promise<KernelSession>;
  /** Cluster mode: the kernel on the shared Jupyter server this entry drives. */
  shared?: SharedRemoteKernel;
  /** Set once open: what reaping looks at. */
  session?: KernelSession;
  /** `Date.now()` when it was opened. */
  openedAt: number;
  /** Stops the approval board following this kernel's gate. */
  unwatch?: () => void;
}

/** A kernel as an operator sees it (`list()`). */
export interface KernelInfo {
  id: string;
  /** The owner's caller key (`session:…`, `principal:…`), or undefined for a handle-only kernel. */
  owner: string | undefined;
  openedAt: number;
  /** `Date.now()` of the last use; undefined while it is still opening. */
  lastUsed: number | undefined;
  busy: boolean;
  pid: number | undefined;
}

export class Kernels {
  readonly #context: KernelSessionContext;
  readonly #logger: Logger;
  readonly #entries = new Map<string, Entry>();
  /** Default-kernel key → kernel id. */
  readonly #homes = new Map<string, string>();
  readonly #gone = new Tombstones<string, Tombstone>(TOMBSTONES);
  /** Default-kernel key → why its kernel closed; told to the next call, once. */
  readonly #homesGone = new Tombstones<string, string>(TOMBSTONES);
  readonly #reaper: NodeJS.Timeout;
  /** Every kernel's pending approvals, for an operator's page (`approval: channel`). */
  readonly approvals = new ApprovalBoard();
  #closed = false;
  /** Cluster mode: the other replicas' kernels. */
  readonly #sharing: KernelSharing;

  constructor(context: KernelSessionContext) {
    this.#context = context;
    this.#logger = context.logger ?? createLogger('ipybox');
    this.#sharing = new KernelSharing(context.settings.kernelGateway, this.#logger);
    const idle = context.settings.kernelIdleTimeoutMs;
    this.#reaper = setInterval(() => void this.reapIdle(), Math.min(idle, 60_000));
    this.#reaper.unref();
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Cluster mode: kernels on the Jupyter server are shared with the other replicas through
   * `directory`, so any replica runs a caller's cells. Kernels on this machine stay local: no
   * other replica could reach them.
   */
  shareThrough(directory: KernelDirectory): void {
    this.#sharing.shareThrough(directory);
  }

  /**
   * The kernel a call reaches: the one `handle` names, else the caller's default one, opened on
   * first use. `open: false`: a caller without a default kernel gets an error, not a new one.
   */
  async reach(
    caller: KernelCaller,
    handle?: string,
    { open = true }: { open?: boolean } = {},
  ): Promise<KernelLease> {
    if (this.#closed) throw new Error('ipybox is shutting down');
    if (handle !== undefined) {
      await this.#adoptShared(caller, handle);
      return this.#lease(this.#byHandle(caller, handle), false, false);
    }
    if (caller.home === undefined) {
      if (!open) {
        throw noOwnKernelError();
      }
      return this.#lease(this.#openEntry(caller, undefined), true, true);
    }
    if (this.#sharing.directory.shared) {
      const shared = await this.#sharing.directory.homeKernel(caller.home).catch(() => undefined);
      if (shared !== undefined) await this.#adoptShared(caller, undefined, shared);
    }
    const id = this.#homes.get(caller.home);
    const existing = id === undefined ? undefined : this.#entries.get(id);
    if (existing) return this.#lease(existing, false, false);
    const reason = this.#homesGone.take(caller.home);
    if (reason !== undefined) {
      throw ownKernelGoneError(reason);
    }
    return this.#lease(this.#openEntry(caller, caller.home), true, false);
  }

  /** Opens a kernel of the caller's own, reachable by its handle only. */
  async openNew(caller: KernelCaller): Promise<KernelLease> {
    if (this.#closed) throw new Error('ipybox is shutting down');
    return this.#lease(this.#openEntry(caller, undefined), true, true);
  }

  /** Every kernel, oldest first, for an operator's page. */
  list(): KernelInfo[] {
    return [...this.#entries.values()].map((e) => ({
      id: e.id,
      owner: e.owner,
      openedAt: e.openedAt,
      lastUsed: e.session?.lastUsed,
      busy: e.session?.busy ?? true,
      pid: e.session?.kernelPid,
    }));
  }

  /**
   * An operator's action on kernel `id`: interrupt the running cell, restart (fresh state), or
   * close it (its owner hears, on its next call, that an operator closed it). Throws when no
   * such kernel is open.
   */
  async operate(id: string, action: 'interrupt' | 'restart' | 'close'): Promise<string> {
    const entry = this.#entries.get(id);
    if (entry === undefined) {
      throw new Error(`no open kernel ${id}: it was closed or never existed`);
    }
    const session = await entry.opening;
    if (action === 'interrupt') {
      session.interrupt();
      return `interrupted kernel ${id}`;
    }
    if (action === 'restart') {
      await session.reset();
      return `restarted kernel ${id}: its variables and imports are gone`;
    }
    await this.#end(entry, 'by an operator (mcp-proxy console)', true);
    return `closed kernel ${id}`;
  }

  /** Kernels already open (for broadcasting a new server or a new venv). */
  async open(): Promise<KernelSession[]> {
    const settled = await Promise.allSettled([...this.#entries.values()].map((e) => e.opening));
    return settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  }

  /** A 2025 session or a connection ended: its kernels go with it. */
  async sessionClosed(closed: { connectionId: string; sessionId?: string }): Promise<void> {
    const keys = new Set(keysOfClosed(closed));
    const ending = [...this.#entries.values()].filter(
      (e) =>
        (e.home !== undefined && keys.has(e.home)) || (e.owner !== undefined && keys.has(e.owner)),
    );
    for (const key of keys) this.#homesGone.take(key);
    await Promise.allSettled(
      ending.map((entry) => this.#end(entry, 'when the MCP session that opened it ended', false)),
    );
  }

  /** Closes kernels idle longer than the timeout. Returns how many. */
  async reapIdle(now = Date.now()): Promise<number> {
    const timeoutMs = this.#context.settings.kernelIdleTimeoutMs;
    const idle = [...this.#entries.values()].filter(
      (e) =>
        e.reapWhenIdle &&
        e.session !== undefined &&
        !e.session.busy &&
        now - e.session.lastUsed >= timeoutMs,
    );
    const reason = `after ${Math.round(timeoutMs / 1000)} s idle (kernel_idle_timeout)`;
    const usedElsewhere = await this.#sharing.usedElsewhere(idle, now - timeoutMs);
    for (const entry of idle) {
      if (usedElsewhere.has(entry)) continue;
      this.#logger.info(`ipybox: closing the idle kernel ${entry.id}`);
      await this.#end(entry, reason, true);
    }
    return idle.length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#reaper);
    const entries = [...this.#entries.values()];
    for (const entry of entries) entry.unwatch?.();
    this.#entries.clear();
    this.#homes.clear();
    await Promise.allSettled(
      entries.map(async (e) => (await e.opening.catch(() => undefined))?.close()),
    );
  }

  #byHandle(caller: KernelCaller, handle: string): Entry {
    const parsed = parseKernelHandle(handle);
    if (!parsed) throw unknownHandleError();
    const entry = this.#entries.get(parsed.id) ?? this.#gone.get(parsed.id);
    if (!entry || !sameSecret(parsed.digest, entry.digest)) throw unknownHandleError();
    if (entry.owner !== undefined && entry.owner !== caller.owner) {
      throw otherOwnerError(parsed.id);
    }
    if (!('opening' in entry)) throw goneKernelError(parsed.id, entry.reason);
    return entry;
  }

  /** `adopted`: a kernel another replica opened (cluster mode), attached here. */
  #openEntry(
    caller: KernelCaller,
    home: string | undefined,
    adopted?: { id: string; handle: string; digest: Buffer; remoteId: string | undefined },
  ): Entry {
    const { maxKernels, kernelIdleTimeoutMs } = this.#context.settings;
    if (this.#entries.size >= maxKernels) {
      throw new KernelLimitError(maxKernels, kernelIdleTimeoutMs / 1000);
    }
    const { id, handle, digest } = adopted ?? mintKernelHandle();
    const shared: SharedRemoteKernel | undefined = this.#sharing.directory.shared
      ? {
          id: adopted?.remoteId,
          onCreated: (remoteId) => void this.#sharing.publish(entry, remoteId),
        }
      : undefined;
    const context = shared ? { ...this.#context, sharedKernel: shared } : this.#context;
    const entry: Entry = {
      id,
      handle,
      digest,
      owner: caller.owner,
      home,
      reapWhenIdle: home === undefined || caller.reapHomeWhenIdle,
      // The kernel session's modules (client, executor, tool server, approval gate) load with
      // the first kernel, not at start-up: a server answers its first request sooner.
      opening: import('./kernelSession.ts').then(({ KernelSession }) =>
        KernelSession.open(id, context),
      ),
      shared,
      openedAt: Date.now(),
    };
    this.#entries.set(id, entry);
    if (home !== undefined) this.#homes.set(home, id);
    // Reachable from the other replicas at once (a new_kernel handle before its first cell).
    if (shared && !adopted) void this.#sharing.publish(entry, undefined);
    entry.opening.then(
      (session) => {
        entry.session = session;
        entry.unwatch = this.approvals.watch(session.approvalGate, id);
      },
      () => this.#forget(entry),
    );
    return entry;
  }

  async #lease(entry: Entry, opened: boolean, handleNeeded: boolean): Promise<KernelLease> {
    const session = await entry.opening;
    session.touch();
    if (this.#sharing.directory.shared)
      void this.#sharing.directory.touch(entry.id).catch(() => {});
    return { session, handle: entry.handle, opened, handleNeeded };
  }

  #forget(entry: Entry): void {
    entry.unwatch?.();
    if (this.#entries.get(entry.id) !== entry) return;
    this.#entries.delete(entry.id);
    if (entry.home !== undefined && this.#homes.get(entry.home) === entry.id) {
      this.#homes.delete(entry.home);
    }
  }

  /** Closes a kernel, leaving a tombstone; `tellHome`: the default caller hears it next time. */
  async #end(entry: Entry, reason: string, tellHome: boolean): Promise<void> {
    this.#forget(entry);
    this.#gone.add(entry.id, { digest: entry.digest, owner: entry.owner, reason });
    if (tellHome && entry.home !== undefined) this.#homesGone.add(entry.home, reason);
    await (await entry.opening.catch(() => undefined))?.close();
    if (entry.shared) await this.#sharing.retire(entry, reason);
  }

  /**
   * Cluster mode: this replica's view of a kernel follows the directory — one another replica
   * opened is attached here (for its owner, with the right secret: else it stays unknown here),
   * one closed there leaves its tombstone here, one replaced there (reset, or lost and started
   * again) is attached anew. The kernel is the one `handle` names, else `homeId` (the caller's
   * default). Redis away: local state only.
   */
  async #adoptShared(
    caller: KernelCaller,
    handle: string | undefined,
    homeId?: string,
  ): Promise<void> {
    const parsed = handle === undefined ? undefined : parseKernelHandle(handle);
    const id = parsed?.id ?? homeId;
    if (!this.#sharing.directory.shared || id === undefined) return;
    const record = await this.#sharing.directory.kernel(id).catch(() => undefined);
    if (!record) return;
    const digest = Buffer.from(record.digest, 'hex');
    if (parsed && !sameSecret(parsed.digest, digest)) return;
    if (record.owner !== undefined && record.owner !== caller.owner) return;
    const home = parsed ? undefined : caller.home;
    const local = this.#entries.get(id);
    const current =
      local?.shared?.id === record.remoteId || local?.shared?.lost === record.remoteId;
    if (local && record.gone === undefined && current) return;
    if (local) {
      // Only let go: the kernel is gone already, or another one replaced it on the server.
      this.#forget(local);
      void local.opening.then(
        (session) => session.close(),
        () => {},
      );
    }
    if (record.gone !== undefined) {
      this.#gone.add(id, { digest, owner: record.owner, reason: record.gone });
      if (home !== undefined) this.#homesGone.add(home, record.gone);
      return;
    }
    const named = handle?.trim() ?? record.handle;
    if (named === undefined) return;
    const opener = { owner: record.owner, home, reapHomeWhenIdle: true };
    this.#openEntry(opener, home, { id, handle: named, digest, remoteId: record.remoteId });
  }
}
