/**
 * Real SDK clients pinned to one era on an HTTP endpoint, listening for tool-list changes or
 * skill changes: for tests that a server announces a change to the clients of both eras.
 *
 * @module
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';

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

/**
 * A real SDK client of one era on an HTTP endpoint that counts `resources/list_changed` (how a
 * server says its skills changed), with the SDK's `SkillsClient` on it. `changed(n)` resolves
 * once the n-th change was heard; `heard()` is the count so far.
 */
export async function skillsListener(
  url: string,
  era: 'legacy' | 'modern',
  t: { after: (fn: () => Promise<void>) => void },
): Promise<{ skills: SkillsClient; changed(count: number): Promise<void>; heard(): number }> {
  let heard = 0;
  let wake: () => void = () => undefined;
  const client = new Client(
    { name: `skills-listener-${era}`, version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'legacy' ? 'legacy' : { pin: '2026-07-28' } },
      listChanged: {
        resources: {
          debounceMs: 0,
          onChanged: () => {
            heard += 1;
            wake();
          },
        },
      },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  t.after(() => client.close());
  await client.listResources();
  const changed = (count: number) =>
    new Promise<void>((resolve) => {
      wake = () => (heard >= count ? resolve() : undefined);
      wake();
    });
  return { skills: new SkillsClient(client), changed, heard: () => heard };
}
