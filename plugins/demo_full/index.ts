/**
 * demo_full — one of each: a tool, a resource and a prompt. Read it as a tour of the plugin API.
 *
 * - **Tool** `demo_text_stats`: validated input (zod), a declared output schema, and a result
 *   with both text (for the model) and `structuredContent` (for programs).
 * - **Resource** `demo://status`: read-only data a client can fetch; here, how often the tool
 *   was called since the plugin was loaded (state lives in this closure, so a reload resets it).
 * - **Prompt** `demo_summarize`: a message template the user picks in their client.
 *
 * The logic lives in `text.ts`, free of MCP, so it can be tested and reused on its own.
 */
import type { PluginServer } from '@mcpbox/framework';
import { z } from 'zod';
import { textStats } from './text.ts';

export const description = 'A tool, a resource and a prompt: the whole plugin API in one place.';

export function register(server: PluginServer): void {
  const loadedAt = new Date();
  let calls = 0;

  server.registerTool(
    'demo_text_stats',
    {
      title: 'Text statistics',
      description:
        'Counts characters, words and lines of a text, and lists its most frequent words.',
      inputSchema: { text: z.string().describe('The text to measure') },
      outputSchema: {
        characters: z.number().int(),
        words: z.number().int(),
        lines: z.number().int(),
        top_words: z.array(z.object({ word: z.string(), count: z.number().int() })),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ text }) => {
      calls += 1;
      const stats = textStats(text);
      return {
        content: [
          {
            type: 'text',
            text: `${stats.words} words, ${stats.lines} lines, ${stats.characters} characters`,
          },
        ],
        structuredContent: { ...stats },
      };
    },
  );

  server.registerResource(
    'demo_status',
    'demo://status',
    { title: 'demo_full status', description: 'Calls since load', mimeType: 'application/json' },
    (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ loaded_at: loadedAt.toISOString(), tool_calls: calls }),
        },
      ],
    }),
  );

  server.registerPrompt(
    'demo_summarize',
    {
      title: 'Summarize a text',
      description: 'Asks the model for a summary in a given style.',
      argsSchema: {
        text: z.string().describe('The text to summarize'),
        style: z.string().optional().describe('e.g. "one sentence", "bullet points"'),
      },
    },
    ({ text, style }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Summarize the following text as ${style ?? 'one short paragraph'}:\n\n${text}`,
          },
        },
      ],
    }),
  );
}
