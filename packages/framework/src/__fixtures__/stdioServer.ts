// A tiny stdio MCP server for tests: the fixture plugins' `kitchen` plus a built-in tool, and,
// with `MIRROR_UPSTREAM=<fixture file>` (e.g. upstream-modern.ts) or `MIRROR_UPSTREAM=everything`
// (server-everything), that upstream as plugin `up`, its names prefixed `up_`; with
// `APPROVE_TOOLS=<glob>`, a policy whose approve rule has the client approve every call of those
// tools. Run as: node --import tsx stdioServer.ts
import { z } from 'zod';
import { parseAccessSettings } from '../access/settings.ts';
import { createLogger } from '../logging/index.ts';
import { upstreamPlugin } from '../plugins/upstream.ts';
import { createServer } from '../server.ts';
import { FIXTURE_PLUGINS } from './testServer.ts';
import { everythingBin, fixtureParams } from './upstream-processes.ts';

const server = createServer({
  name: 'stdio-fixture',
  transport: 'stdio',
  pluginDirs: [FIXTURE_PLUGINS],
});
const loaded = await server.registry.loadPlugin('kitchen');
if (!loaded.ok) throw new Error(loaded.error);
const mirrored = process.env.MIRROR_UPSTREAM;
const params =
  mirrored === 'everything'
    ? { command: everythingBin, args: ['stdio'] }
    : mirrored && fixtureParams(mirrored);
const upstream = params ? upstreamPlugin('up', params) : undefined;
if (upstream) {
  const result = await server.registry.loadPlugin('up', { module: upstream, prefix: 'up' });
  if (!result.ok) throw new Error(result.error);
}
const approve = process.env.APPROVE_TOOLS;
if (approve) {
  const rules = [{ name: 'approve-these', tools: [approve], approve: 'true' }];
  server.access.update(parseAccessSettings({ policy: { default: 'allow', rules } }));
}
server.registerTool('pid', { description: 'The server process id' }, () => String(process.pid));
// A plugin bug: a text block without its text, which no client could read.
server.registerTool('malformed', { description: 'Returns a result that is not one' }, () => ({
  content: [{ type: 'text' } as never],
}));
// More than plain text: an image and an annotated block; and the same image without its data.
const picture = { type: 'image', data: 'aGk=', mimeType: 'image/png' } as const;
const annotated = { type: 'text', text: 'caption', annotations: { priority: 1 } } as const;
server.registerTool('picture', { description: 'An image with a caption' }, () => ({
  content: [picture, annotated],
}));
server.registerTool('blurred', { description: 'An image without its data' }, () => ({
  content: [{ type: 'image', mimeType: 'image/png' } as never],
}));
// What a handler reads of its request's `_meta` and envelope.
server.registerTool('request_meta', { description: 'The request meta it was called with' }, (ctx) =>
  JSON.stringify({ meta: ctx.mcpReq._meta ?? null, envelope: ctx.mcpReq.envelope ?? null }),
);
// A call that reads its abort signal only after a while, as a handler that first does other
// work: a cancellation that came before then must still show.
const aborts = { seenLate: 0 };
server.registerTool(
  'check_abort_later',
  { description: 'Reads its abort signal after ms', inputSchema: { ms: z.number() } },
  async ({ ms }, ctx) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    if (ctx.signal.aborted) aborts.seenLate += 1;
    return ctx.signal.aborted ? 'aborted' : 'not aborted';
  },
);
server.registerTool('aborts_seen', { description: 'How many late reads saw an abort' }, () =>
  JSON.stringify(aborts),
);
await server.start();
await server.closed;
await upstream?.dispose();
createLogger('stdio-fixture').info('client gone, exiting');
