// A createServer() HTTP server in a process of its own, for tests that may starve or crash it
// (e.g. run with a small --max-old-space-size). Server options as JSON in the first argument;
// logs `serving MCP at <url>` on stderr. Run as: node --import tsx httpServer.ts '{"maxListens":4}'
import { createServer, type ServerOptions } from '../server.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as ServerOptions;
const server = createServer({ transport: 'http', port: 0, ...options });
await server.start();
await server.closed;
