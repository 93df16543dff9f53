/**
 * A 2026-07-28-only MCP server built with SDK v2, for upstream-client tests: it refuses the 2025
 * `initialize` handshake (`legacy: 'reject'`), so only a client that negotiates the modern era
 * gets in. Over stdio by default (`serveStdio`); with `--http` over Streamable HTTP on a free
 * loopback port (`createMcpHandler` behind `toNodeHandler`), printing `{"port":N,"pid":N}` on
 * stdout. `UPSTREAM_ERA=legacy` turns it into a plain 2025 stdio server instead (the same tools,
 * minus the `input_required` ones), for tests of an upstream that changes era between starts;
 * `UPSTREAM_ERA=broken` makes it exit at once. `UPSTREAM_START_LOG=<file>` appends each start's
 * pid to that file (a probe's short-lived sibling process counts as a start).
 *
 * Tools: `echo`; `confirm`, which asks the client to confirm (one `input_required` round with an
 * elicitation); `interview`, two rounds in sequence whose first answer travels in `requestState`;
 * `summarize`, which asks for a sampling completion; `wait`, which answers only when cancelled;
 * `whoami` (this process, its era and how many calls it saw cancelled); and
 * `add_tool`, which adds a tool and publishes `tools/list_changed`. The low-level `Server` is used
 * so that the listing is exactly as written here: `echo` carries `icons`, `_meta`, a field no
 * revision defines (`x-future`) and a JSON Schema with keywords in an unusual order.
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  type CallToolResult,
  createMcpHandler,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/** Tools added at run time by `add_tool`; every instance lists them. */
const added: string[] = [];
/** Publishes a tools change to the clients of the entry in use. */
let toolsChanged: () => void = () => {};
const legacyOnly = process.env.UPSTREAM_ERA === 'legacy';
/** Calls of `wait` that ended by their cancellation. */
let cancelled = 0;
if (process.env.UPSTREAM_START_LOG)
  appendFileSync(process.env.UPSTREAM_START_LOG, `${process.pid}\n`);
if (process.env.UPSTREAM_ERA === 'broken') {
  process.stderr.write('upstream-modern: broken on purpose\n');
  process.exit(3);
}

const ECHO_TOOL = {
  name: 'echo',
  title: 'Echo',
  description: 'Echoes its text',
  inputSchema: {
    required: ['text'],
    type: 'object',
    properties: { text: { type: 'string', minLength: 1, description: 'what to echo' } },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true },
  icons: [{ src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png' }],
  _meta: { 'example.com/origin': 'upstream-modern' },
  'x-future': { kept: ['as', 'sent'] },
};

const noInput = { type: 'object', properties: {} };
const yesNo = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

const listing = () => [
  ECHO_TOOL,
  ...(legacyOnly
    ? []
    : [
        {
          name: 'confirm',
          description: 'Asks the client to confirm an action',
          inputSchema: { type: 'object', properties: { action: { type: 'string' } } },
        },
        { name: 'interview', description: 'Asks a name, then a colour', inputSchema: noInput },
        {
          name: 'summarize',
          description: 'Asks the client for a sampling completion',
          inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
        },
      ]),
  { name: 'wait', description: 'Waits until the call is cancelled', inputSchema: noInput },
  { name: 'whoami', description: 'This process and its era', inputSchema: noInput },
  {
    name: 'add_tool',
    description: 'Adds a tool and announces the change',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
  },
  ...added.map((name) => ({ name, description: 'added at run time', inputSchema: noInput })),
];

type Args = Record<string, unknown>;
type Answer = CallToolResult | InputRequiredResult;

function confirm(args: Args, ctx: ServerContext): Answer {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
  if (answer.kind === 'missing') {
    return inputRequired({
      inputRequests: {
        confirm: inputRequired.elicit({
          message: `Really ${String(args.action)}?`,
          requestedSchema: yesNo,
        } as never),
      },
    });
  }
  if (answer.kind !== 'elicit') return { ...text(`unexpected ${answer.kind}`), isError: true };
  return text(`${String(args.action)}: ${answer.action} ${JSON.stringify(answer.content ?? null)}`);
}

function interview(ctx: ServerContext): Answer {
  const ask = (key: string, message: string) =>
    inputRequired.elicit({
      message,
      requestedSchema: { type: 'object', properties: { [key]: { type: 'string' } } },
    } as never);
  const name = ctx.mcpReq.requestState<string>();
  if (name === undefined) {
    const first = inputResponse(ctx.mcpReq.inputResponses, 'name');
    if (first.kind !== 'elicit' || first.action !== 'accept') {
      return inputRequired({ inputRequests: { name: ask('name', 'Your name?') } });
    }
    return inputRequired({
      inputRequests: { colour: ask('colour', 'Your colour?') },
      requestState: String(first.content?.name),
    });
  }
  const second = inputResponse(ctx.mcpReq.inputResponses, 'colour');
  const colour = second.kind === 'elicit' ? second.content?.colour : undefined;
  return text(`${name} likes ${String(colour)}`);
}

function summarize(args: Args, ctx: ServerContext): Answer {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'summary');
  if (answer.kind === 'sampling') {
    const content = answer.result.content as { type: string; text?: string };
    return text(`summary by ${answer.result.model}: ${content.text}`);
  }
  return inputRequired({
    inputRequests: {
      summary: inputRequired.createMessage({
        messages: [
          { role: 'user', content: { type: 'text', text: `Summarize ${String(args.topic)}` } },
        ],
        maxTokens: 50,
      }),
    },
  });
}

function wait(ctx: ServerContext): Promise<Answer> {
  return new Promise((resolve) => {
    ctx.mcpReq.signal.addEventListener('abort', () => {
      cancelled += 1;
      resolve(text('cancelled'));
    });
  });
}

function call(name: string, args: Args, ctx: ServerContext): Answer | Promise<Answer> {
  switch (name) {
    case 'echo':
      return text(`echo: ${String(args.text)}`);
    case 'confirm':
      return confirm(args, ctx);
    case 'interview':
      return interview(ctx);
    case 'summarize':
      return summarize(args, ctx);
    case 'wait':
      return wait(ctx);
    case 'whoami':
      return text(
        JSON.stringify({ pid: process.pid, era: legacyOnly ? 'legacy' : 'modern', cancelled }),
      );
    case 'add_tool':
      added.push(String(args.name));
      toolsChanged();
      return text(`added ${String(args.name)}`);
    default:
      if (added.includes(name)) return text(name);
      return { ...text(`unknown tool ${name}`), isError: true };
  }
}

function build(): Server {
  const server = new Server(
    { name: 'upstream-modern', version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler('tools/list', () => ({ tools: listing() }) as never);
  server.setRequestHandler(
    'tools/call',
    ({ params }, ctx) => call(params.name, params.arguments ?? {}, ctx) as never,
  );
  return server;
}

if (legacyOnly) {
  const server = build();
  toolsChanged = () => void server.sendToolListChanged();
  await server.connect(new StdioServerTransport());
  process.stderr.write(`upstream-modern (2025 only) ready (pid ${process.pid})\n`);
} else if (process.argv.includes('--http')) {
  const handler = createMcpHandler(() => build(), { legacy: 'reject' });
  toolsChanged = () => handler.notify.toolsChanged();
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => void node(req, res));
  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stdout.write(`${JSON.stringify({ port, pid: process.pid })}\n`);
  });
} else {
  let pinned: Server | undefined;
  toolsChanged = () => void pinned?.sendToolListChanged();
  serveStdio(
    () => {
      pinned = build();
      return pinned;
    },
    { legacy: 'reject' },
  );
  process.stderr.write(`upstream-modern ready (pid ${process.pid})\n`);
}
