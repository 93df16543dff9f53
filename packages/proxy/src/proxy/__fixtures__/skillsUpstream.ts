/**
 * An SDK v2 MCP server that serves Skills (SEP-2640) with the SDK's own `SkillCatalog`, for the
 * tests of skills mirrored through mcp-proxy. Both eras, over stdio.
 *
 * `SKILLS_DIR` is the folder of skill folders it serves; without it the server declares no skills.
 * `SKILLS_BROKEN=1` declares the extension but fails every `skills/list` (an upstream whose
 * skills call fails). Tools: `echo`, and `reload_skills`, which scans `SKILLS_DIR` again and —
 * when the skills changed — announces it with `notifications/resources/list_changed`, as the SDK
 * does for every catalog.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const dir = process.env.SKILLS_DIR;
const broken = process.env.SKILLS_BROKEN === '1';

const catalog = dir ? await loadSkills(dir) : undefined;
const failing = broken
  ? new SkillsExtension({
      source: {
        list: async () => {
          throw new Error('the skills store is offline');
        },
        get: async () => undefined,
        read: async () => undefined,
      },
    })
  : undefined;

function build(): McpServer {
  const server = new McpServer({ name: 'skills-upstream', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'reload_skills',
    { description: 'Scans the skills folder again' },
    async () => {
      // The catalog itself tells the connected client (`resources/list_changed`).
      const changes = await catalog?.reload();
      return { content: [{ type: 'text', text: JSON.stringify(changes ?? null) }] };
    },
  );
  (failing ?? catalog)?.attach(server);
  return server;
}

serveStdio(() => build());
process.stderr.write(`skills-upstream ready (pid ${process.pid})\n`);
