/**
 * A real HTTP server whose policy asks for approvals, an audit log to read back, and SDK v2
 * clients of either era that answer approval questions as told: for the approval tests.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeAtExit } from '@mcpbox/test-utils';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import type { RuleSettings } from '../access/settings.ts';
import { parseAccessSettings } from '../access/settings.ts';
import { AuditLog } from '../audit/log.ts';
import type { AuditRecord } from '../audit/record.ts';
import { type Era, versionOfEra } from '../protocol/era.ts';
import { createServer, type McpboxServer } from '../server.ts';

type After = { after: (fn: () => unknown) => void };

export interface ApprovalServer {
  server: McpboxServer;
  url: string;
  /** The amounts `refund` and `wipe` ran with, in order. */
  ran: string[];
  /** The audit log's approval records so far. */
  approvals(): Promise<AuditRecord[]>;
}

/** Refunds over 100 need approval as `rules` say; `wipe` too, when a rule names it. */
export async function startApprovalServer(
  t: After,
  rules: RuleSettings[],
): Promise<ApprovalServer> {
  const server = createServer({ name: 'approvals', transport: 'http', port: 0 });
  t.after(() => server.close());
  const ran: string[] = [];
  const amount = { amount: z.number(), password: z.string().optional() };
  server.registerTool('refund', { inputSchema: amount }, ({ amount }) => {
    ran.push(`refund ${amount}`);
    return `refunded ${amount}`;
  });
  server.registerTool('wipe', { inputSchema: amount }, ({ amount }) => {
    ran.push(`wipe ${amount}`);
    return `wiped ${amount}`;
  });
  server.access.update(
    parseAccessSettings({ policy: { default: 'allow', rules: rules as unknown[] } }),
  );
  const dir = removeAtExit(await mkdtemp(join(tmpdir(), 'approvals-')));
  const path = join(dir, 'audit.jsonl');
  const log = new AuditLog({ path });
  t.after(server.audit.attach(log));
  t.after(() => log.close());
  const url = (await server.start()) as string;
  return {
    server,
    url,
    ran,
    async approvals() {
      await log.flush();
      const text = await readFile(path, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AuditRecord)
        .filter((record) => record.kind === 'approval');
    },
  };
}

/** How a client answers an approval question: accept, decline, or it cannot be asked at all. */
export type Answering = 'accept' | 'decline' | 'no elicitation';

/** An SDK v2 client of `era`; `asked` collects the questions' messages. */
export async function approvalClient(
  t: After,
  url: string,
  era: Era,
  answering: Answering = 'accept',
  asked: string[] = [],
): Promise<Client> {
  const client = new Client(
    { name: `approver-${era}`, version: '1.0.0' },
    {
      capabilities: answering === 'no elicitation' ? {} : { elicitation: { form: {} } },
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: versionOfEra(era) } },
    },
  );
  if (answering !== 'no elicitation') {
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params.message);
      return { action: answering };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  return client;
}
