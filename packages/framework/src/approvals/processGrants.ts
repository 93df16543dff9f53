/**
 * The process's grant book: over the process's records and key ring (the cluster's signed Redis
 * records and keys once it joined one): the one book every server of the process issues and
 * takes grants with (`server.grants`), and parts that approve calls outside the dispatcher —
 * ipybox's kernel code calling its registered servers — so their approvals are the same
 * single-use, HMAC'd grants as a client's or an operator's.
 *
 * @module
 */
import { processRecords, processState } from '../state/process.ts';
import { GrantBook } from './grants.ts';

let book: GrantBook | undefined;

export function processGrants(): GrantBook {
  book ??= new GrantBook(processRecords, () => processState().keys);
  return book;
}
