/**
 * Dependencies ipybox loads on first use, not at start-up (see `lazyRequire` in the framework):
 * ZeroMQ when the first kernel starts (ws, for the approval WebSocket, the framework loads the
 * same way: `approvals/socket.ts`). A server over stdio then answers its first request sooner
 * (bench/startup.ts). ZeroMQ is a CommonJS package, so the `require` here gets the very module
 * instance an `import` of it would.
 *
 * @module
 */
import { lazyRequire } from '@mcpbox/framework';

export const zeromq = lazyRequire<typeof import('zeromq')>('zeromq', import.meta.url);
