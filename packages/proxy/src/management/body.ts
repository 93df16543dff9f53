/**
 * Reading request bodies of the management server (the REST API and the console), bounded.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';

const MAX_BODY_BYTES = 64 * 1024;

/** The request body as text, trimmed; a 413 past 64 KiB. */
export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}
