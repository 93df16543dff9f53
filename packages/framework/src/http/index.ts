/**
 * What every HTTP listener of the toolkit shares: the one definition of loopback, the
 * DNS-rebinding check built on it, and JSON replies.
 *
 * @module
 */
export { type RebindingCheck, rebindingCheck } from './guard.ts';
export { sendJson, sendJsonRpcError } from './json.ts';
export { hostOfHeader, isLoopbackHost } from './loopback.ts';
