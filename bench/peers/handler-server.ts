/**
 * A peer of bench/peers.ts: Vercel's npm `mcp-handler` (a Web-standard handler over the SDK v2,
 * both eras: 2026-07-28 natively, 2025 stateless) with the same `echo` tool, installed in
 * bench/node_modules only. HTTP only. Prints `MCP endpoint:  <url>` on stderr once listening.
 */
import { z } from 'zod';
import { listenFetch } from './listen.ts';

// Imported through a variable so the repository type-checks before bench/node_modules exists.
const MCP_HANDLER = 'mcp-handler';
interface SdkLikeServer {
  registerTool(
    name: string,
    config: { description: string; inputSchema: unknown },
    run: (args: { message: string }) => unknown,
  ): void;
}
const { createMcpHandler } = (await import(MCP_HANDLER)) as {
  createMcpHandler: (
    init: (server: SdkLikeServer) => void,
    options?: object,
  ) => (request: Request) => Promise<Response>;
};

const handler = createMcpHandler((server) => {
  server.registerTool(
    'echo',
    {
      description: 'Returns the message unchanged.',
      inputSchema: z.object({ message: z.string() }),
    },
    ({ message }) => ({ content: [{ type: 'text', text: message }] }),
  );
});
listenFetch(handler);
