/**
 * `mcp-client call`, `inspect` and `skills`: connect, do one thing, print JSON (or the file read)
 * on stdout, close. Made for scripts: stdout carries only the answer; everything else (the server's log
 * messages, progress, failures) goes to stderr, and the exit code says how it went:
 * 0 done, 1 the tool answered `isError` or the server/connection failed, 2 the command line was
 * wrong (unknown tool, arguments that do not match its schema) and nothing was called.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { callArguments, callSyntaxError } from './callArguments.ts';
import type { ConnectTarget } from './connect.ts';
import { formatError } from './format.ts';
import { allPages, ClientSession, type Output } from './session.ts';
import { listedSkill, listSkills, pickSkill } from './skills.ts';

/** Exit codes of the one-shot commands. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Notices and errors on stderr, prefixed with the command; stdout stays JSON only. */
function stderrOutput(prefix: string): Output {
  const write = (text: string) => process.stderr.write(`${prefix}: ${text}\n`);
  return { print: write, error: write, notice: write };
}

/** Connects, runs `work`, always closes; returns the exit code. */
export async function withSession(
  target: ConnectTarget,
  prefix: string,
  work: (session: ClientSession, out: Output) => Promise<number>,
): Promise<number> {
  const out = stderrOutput(prefix);
  const session = new ClientSession(target, out);
  try {
    await session.connect();
  } catch (err) {
    out.error(`could not connect: ${formatError(err)}`);
    await session.close();
    return EXIT.failed;
  }
  try {
    return await work(session, out);
  } finally {
    await session.close();
  }
}

export interface CallRequest {
  tool: string;
  /** `--arg NAME=VALUE` pairs. */
  pairs: string[];
  /** `--json '{…}'`. */
  json?: string;
  /** How long the call may go without progress; the SDK's default (60 s) when unset. */
  timeoutMs?: number;
}

/** Calls one tool and prints its result as JSON. */
export async function callOnce(target: ConnectTarget, request: CallRequest): Promise<number> {
  const syntax = callSyntaxError(request.pairs, request.json);
  if (syntax) {
    process.stderr.write(`mcp-client call: ${syntax}\nNothing was called.\n`);
    return EXIT.usage;
  }
  return withSession(target, 'mcp-client call', async (session, out) => {
    const tool = await session.findTool(request.tool);
    if (!tool) {
      const names = session.knownTools.map((t) => t.name).join(', ') || 'none';
      out.error(`the server has no tool "${request.tool}" (its tools: ${names})`);
      return EXIT.usage;
    }
    const built = callArguments(tool.name, tool.inputSchema, request.pairs, request.json);
    if (!built.ok) {
      out.error(`${built.message}\nNothing was called.`);
      return EXIT.usage;
    }
    let result: CallToolResult;
    try {
      result = (await session.client.callTool(
        { name: tool.name, arguments: built.args },
        {
          onprogress: (p) =>
            out.notice(
              `progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` ${p.message}` : ''}`,
            ),
          timeout: request.timeoutMs,
          // A long-running tool that reports progress keeps the request alive.
          resetTimeoutOnProgress: true,
        },
      )) as CallToolResult;
    } catch (err) {
      out.error(`calling "${tool.name}" failed: ${formatError(err)}`);
      return EXIT.failed;
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (result.isError === true) {
      out.error(`"${tool.name}" answered with an error (isError): ${firstText(result)}`);
      return EXIT.failed;
    }
    return EXIT.ok;
  });
}

function firstText(result: CallToolResult): string {
  const text = result.content?.find((c) => c.type === 'text');
  return text && 'text' in text ? text.text : '(no text content)';
}

/** Prints what the server offers, and how it was reached, as one JSON object. */
export function inspectOnce(target: ConnectTarget): Promise<number> {
  return withSession(target, 'mcp-client inspect', async (session, out) => {
    const client = session.client;
    const capabilities = client.getServerCapabilities() ?? {};
    const failures: Record<string, string> = {};
    // One list failing (a server that advertises resources but has no templates endpoint) is
    // reported and leaves the others standing.
    const list = async <T>(key: string, enabled: unknown, read: () => Promise<T[]>) => {
      if (!enabled) return [];
      try {
        return await read();
      } catch (err) {
        if (err instanceof ProtocolError && err.code === ProtocolErrorCode.MethodNotFound) {
          return [];
        }
        failures[key] = formatError(err);
        out.error(`listing ${key} failed: ${failures[key]}`);
        return [];
      }
    };
    const tools = await list('tools', capabilities.tools, () => session.listTools());
    const resources = await list('resources', capabilities.resources, () =>
      allPages(async (cursor) => {
        const r = await client.listResources(cursor ? { cursor } : undefined);
        return { items: r.resources, nextCursor: r.nextCursor };
      }),
    );
    const resourceTemplates = await list('resourceTemplates', capabilities.resources, () =>
      allPages(async (cursor) => {
        const r = await client.listResourceTemplates(cursor ? { cursor } : undefined);
        return { items: r.resourceTemplates, nextCursor: r.nextCursor };
      }),
    );
    const prompts = await list('prompts', capabilities.prompts, () => session.listPrompts());
    // The Skills extension (SEP-2640): listed when the server declares it.
    const skills = await list('skills', true, async () =>
      (await listSkills(client)).skills.map(listedSkill),
    );
    const info = session.info();
    const report = {
      serverInfo: info.version ?? null,
      protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
      era: client.getProtocolEra() ?? null,
      transport: info.via,
      instructions: info.instructions ?? null,
      capabilities,
      tools,
      resources,
      resourceTemplates,
      prompts,
      skills,
      ...(Object.keys(failures).length > 0 ? { errors: failures } : {}),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return Object.keys(failures).length > 0 ? EXIT.failed : EXIT.ok;
  });
}

/**
 * `mcp-client skills`: lists the skills as JSON, or prints one file of one skill (`read`) as it
 * is — only after it passed the checks against the skill's entry.
 */
export function skillsOnce(target: ConnectTarget, read?: string): Promise<number> {
  return withSession(target, 'mcp-client skills', async (session, out) => {
    const { skills, supported } = await listSkills(session.client);
    if (!supported) {
      out.error('the server does not serve skills (no io.modelcontextprotocol/skills extension)');
      return EXIT.failed;
    }
    if (read === undefined) {
      process.stdout.write(`${JSON.stringify(skills.map(listedSkill), null, 2)}\n`);
      return EXIT.ok;
    }
    const picked = pickSkill(skills, read);
    if (!picked) {
      const names = skills.map((s) => s.frontmatter.name).join(', ') || 'none';
      out.error(`the server has no skill "${read.split('/')[0]}" (its skills: ${names})`);
      return EXIT.usage;
    }
    try {
      const file = await new SkillsClient(session.client).read(picked.skill, picked.path);
      process.stdout.write(file.text ?? file.bytes);
      return EXIT.ok;
    } catch (err) {
      out.error(`reading ${read} failed: ${formatError(err)}`);
      return EXIT.failed;
    }
  });
}
