/**
 * Dependencies ipybox loads on first use, not at start-up (see `lazyRequire` in the framework):
 * ZeroMQ when the first kernel starts, ws when the approval WebSocket opens. A server over stdio
 * then answers its first request sooner (bench/startup.ts). Both are CommonJS packages, so the
 * `require` here gets the very module instance an `import` of them would.
 *
 * @module
 */
import { lazyRequire } from '@mcpbox/framework';

export const zeromq = lazyRequire<typeof import('zeromq')>('zeromq', import.meta.url);
export const ws = lazyRequire<typeof import('ws')>('ws', import.meta.url);
