/**
 * What a caller hears when no kernel can be reached: the kernel limit, and each way a handle or
 * a default kernel can fail (unknown, another caller's, closed). Every message says whether
 * anything ran and what to do next, since the caller is usually a model that reads it.
 *
 * @module
 */

export class KernelLimitError extends Error {
  constructor(max: number, idleSeconds: number) {
    super(
      `ipybox: no kernel available: all ${max} kernels (max_kernels) are in use. ` +
        `Close another MCP session, pass the handle of a kernel you already have (kernel=...), ` +
        `or wait until an idle one is reaped (kernel_idle_timeout = ${idleSeconds} s).`,
    );
    this.name = 'KernelLimitError';
  }
}

/** A kernel handle that reaches nothing this caller may use. Nothing was run. */
export class KernelHandleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KernelHandleError';
  }
}

const FRESH_HINT =
  'Omit kernel to use your own kernel, or call new_kernel for a fresh one, and re-run the cells it needs.';

/** A handle this server did not mint, or minted before a restart. */
export const unknownHandleError = () =>
  new KernelHandleError(
    'ipybox: unknown kernel handle: this server did not issue it, or has restarted since ' +
      `(kernels live in memory, their state is gone). Nothing ran. ${FRESH_HINT}`,
  );

/** A handle of a kernel another caller opened. */
export const otherOwnerError = (id: string) =>
  new KernelHandleError(
    `ipybox: kernel ${id} belongs to another caller (the principal or session that ` +
      `opened it); it was not touched. ${FRESH_HINT}`,
  );

/** A handle of a kernel that was closed (its tombstone's `reason`). */
export const goneKernelError = (id: string, reason: string) =>
  new KernelHandleError(
    `ipybox: kernel ${id} is gone: it was closed ${reason}; its variables and ` +
      `imports are lost. Nothing ran. ${FRESH_HINT}`,
  );

/** A call without a handle from a caller that has no default kernel. */
export const noOwnKernelError = () =>
  new KernelHandleError(
    'ipybox: name the kernel (kernel="ipk_..."): a request without an MCP session or ' +
      'authentication has no kernel of its own. Nothing was touched.',
  );

/** The caller's default kernel was closed since its last call. */
export const ownKernelGoneError = (reason: string) =>
  new KernelHandleError(
    `ipybox: your kernel was closed ${reason}; its variables and imports are gone. ` +
      'Nothing ran. Call again to start a fresh kernel, and re-run the cells it needs.',
  );
