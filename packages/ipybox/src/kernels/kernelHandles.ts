/**
 * Kernel handles: the server-minted names a caller passes as the `kernel` argument to reach one
 * of its kernels. A handle is `ipk_<id>_<secret>`: the id names the kernel (in logs, in
 * resources); the secret proves the caller got the handle from us. Only a digest of the secret
 * is kept, compared in constant time, so neither a log line nor a timing difference gives a
 * handle away. Handles live in memory: a restart voids them all, as it ends their kernels.
 *
 * @module
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const HANDLE = /^ipk_([0-9a-f]{12})_([A-Za-z0-9_-]{24})$/;

export interface MintedHandle {
  /** Public id of the kernel. */
  id: string;
  /** What the caller passes back as `kernel`. */
  handle: string;
  /** SHA-256 of the secret part: what the server keeps. */
  digest: Buffer;
}

function digestOf(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function mintKernelHandle(): MintedHandle {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(18).toString('base64url');
  return { id, handle: `ipk_${id}_${secret}`, digest: digestOf(secret) };
}

/** The id and secret digest of a well-formed handle, or `undefined`. */
export function parseKernelHandle(text: string): { id: string; digest: Buffer } | undefined {
  const match = HANDLE.exec(text.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return { id: match[1], digest: digestOf(match[2]) };
}

/** Whether two secret digests are equal, in constant time. */
export function sameSecret(given: Buffer, kept: Buffer): boolean {
  return given.length === kept.length && timingSafeEqual(given, kept);
}
