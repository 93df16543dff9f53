/**
 * A real SDK client pinned to one era on an HTTP endpoint, listening for tool-list changes: for
 * tests that a server announces a changed tool list to the clients of both eras.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * A real SDK client of one era on an HTTP endpoint, listening for tool-list changes. `heard`
 * resolves with the first tool list that names `tool`. The 2026 client hears through its
 * `subscriptions/listen` stream, the 2025 client through its session.
 */
export async function toolListener(
  url: string,
  era: 'legacy' | 'modern',
  tool: string,
  t: { after: (fn: () => Promise<void>) => void },
): Promise<{ client: Client; heard: Promise<string[]> }> {
  let heard: (names: string[]) => void = () => undefined;
  const names = new Promise<string[]>((resolve) => (heard = resolve));
  const client = new Client(
    { name: `listener-${era}`, version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } },
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (_error, tools) => {
            const listed = (tools ?? []).map((entry) => entry.name);
            if (listed.includes(tool)) heard(listed);
          },
        },
      },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  await client.listTools();
  return { client, heard: names };
}
