import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { descendants, killAll, waitUntilGone } from '@mcpbox/test-utils';
import { repoRoot } from '../__fixtures__/upstream-processes.ts';
import { PluginRegistry } from '../plugins/registry.ts';
import { upstreamPlugin } from '../plugins/upstream.ts';
import { Catalog } from './catalog.ts';
import { splitWords, stem, ToolSearchIndex } from './search.ts';

const REPO_PLUGINS = fileURLToPath(new URL('../../../../plugins', import.meta.url));

/** The fixture catalog: the 200 synthetic tools plus the demo plugins (230-odd tools). */
async function fixtureCatalog() {
  const catalog = new Catalog();
  const registry = new PluginRegistry({ catalog, pluginDirs: [REPO_PLUGINS] });
  for (const plugin of ['synthetic200', 'echo', 'greet', 'demo_full']) {
    const loaded = await registry.loadPlugin(plugin);
    assert.equal(loaded.error, undefined, plugin);
  }
  return { catalog, registry, index: new ToolSearchIndex(catalog) };
}

/**
 * Twenty requests as a user or a model would phrase them — not the tool names — and the tool
 * each one means. Each must come back in the top 3.
 */
const QUERIES: ReadonlyArray<readonly [query: string, tool: string]> = [
  ['book a meeting with the team next tuesday', 'calendar_create_event'],
  ['when is everyone free for a call', 'calendar_find_free_slot'],
  ['give a customer their money back', 'payments_refund'],
  ['will it rain in Paris this weekend', 'weather_forecast'],
  ['route from the train station to the airport', 'maps_directions'],
  ['tail the logs of a crashing container', 'k8s_pod_logs'],
  ['add more replicas to my deployment', 'k8s_scale_deployment'],
  ['what is the latitude and longitude of this street address', 'maps_geocode'],
  ['write a note in the team channel', 'chat_post_message'],
  ['propose merging my feature branch', 'repo_open_pull_request'],
  ['answer the email from my boss', 'mail_reply'],
  ['how many vacation days do I have left', 'hr_time_off_balance'],
  ['convert this text to German', 'translate_text'],
  ['read the words in a scanned photo', 'media_ocr'],
  ['why is my SQL slow, show the plan', 'db_explain'],
  ['how much did we spend on cloud last month', 'cloud_get_costs'],
  ['page the on-call engineer, the site is down', 'monitoring_incident_open'],
  ['where is my parcel', 'shop_track_shipment'],
  ['make the picture smaller', 'media_resize_image'],
  ['remove duplicate people from the CRM', 'crm_merge_contacts'],
];

describe('tool search over the fixture catalog', () => {
  test('the catalog has 200+ tools', async () => {
    const { catalog } = await fixtureCatalog();
    assert.ok(catalog.size.tools >= 200, `${catalog.size.tools} tools`);
  });

  for (const [query, tool] of QUERIES) {
    test(`"${query}" finds ${tool} in the top 3`, async () => {
      const { index } = await fixtureCatalog();
      const top = index.search(query, { limit: 3 }).map((hit) => hit.tool.name);
      assert.ok(top.includes(tool), `top 3 for "${query}": ${top.join(', ')}`);
    });
  }

  test('ranked best first, limited, and restricted to the given plugins', async () => {
    const { index } = await fixtureCatalog();
    const hits = index.search('echo a message back', { limit: 5 });
    assert.ok(hits.length <= 5);
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
    assert.equal(hits[0].plugin, 'echo');
    const onlySynthetic = index.search('echo a message back', { plugins: ['synthetic200'] });
    assert.ok(onlySynthetic.every((hit) => hit.plugin === 'synthetic200'));
    assert.deepEqual(index.search('send', { plugins: [] }), []);
  });

  test('no hits, an empty query and stop words only give []', async () => {
    const { index } = await fixtureCatalog();
    assert.deepEqual(index.search('xylophone quasar'), []);
    assert.deepEqual(index.search(''), []);
    assert.deepEqual(index.search('how do I the'), []);
    assert.deepEqual(index.search('weather', { limit: 0 }), []);
  });

  test('the index follows the catalog: rebuilt on the first search after a change', async () => {
    const { registry, index } = await fixtureCatalog();
    assert.equal(index.search('forecast rain')[0]?.tool.name, 'weather_forecast');
    await registry.unloadPlugin('synthetic200');
    assert.equal(
      index.search('forecast rain').some((hit) => hit.plugin === 'synthetic200'),
      false,
    );
    await registry.loadPlugin('synthetic200');
    assert.equal(index.search('forecast rain')[0]?.tool.name, 'weather_forecast');
  });

  test('a long pasted request (repeated words, more than 32) still ranks its tools', async () => {
    const { index } = await fixtureCatalog();
    const request =
      'I need to give this customer their money back for the broken order, '.repeat(20) +
      'and afterwards tell the team in the support channel what happened with the refund';
    const top = index.search(request, { limit: 3 }).map((hit) => hit.tool.name);
    assert.ok(top.includes('payments_refund'), top.join(', '));
  });

  test('a misspelt long word still finds its tool', async () => {
    const { index } = await fixtureCatalog();
    const top = index.search('transalte documnet', { limit: 3 }).map((hit) => hit.tool.name);
    assert.ok(top.includes('translate_document'), top.join(', '));
  });
});

describe('tool search over mirrored reference servers (real stdio processes)', () => {
  /** Three real upstream servers mirrored beside the synthetic catalog, as in the code-mode bench. */
  const MIRRORED_QUERIES: ReadonlyArray<readonly [query: string, owner: string, tool: string]> = [
    ['read the contents of a text file', 'filesystem', 'filesystem_read_text_file'],
    ['what is inside this directory', 'filesystem', 'filesystem_list_directory'],
    ['remember a new person in the knowledge graph', 'memory', 'memory_create_entities'],
    ['connect two entities with a relation', 'memory', 'memory_create_relations'],
    ['find nodes in memory', 'memory', 'memory_search_nodes'],
    ['add two numbers', 'everything', 'everything_get-sum'],
  ];

  test('each request finds the mirrored tool it means in the top 3', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'search-mirrored-'));
    const { registry, index } = await fixtureCatalog();
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const bin = (name: string) => join(repoRoot, 'node_modules/.bin', `mcp-server-${name}`);
    const upstreams = [
      upstreamPlugin(
        'everything',
        { command: bin('everything'), args: ['stdio'] },
        { logger: quiet },
      ),
      upstreamPlugin(
        'memory',
        { command: bin('memory'), env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
        { logger: quiet },
      ),
      upstreamPlugin('filesystem', { command: bin('filesystem'), args: [dir] }, { logger: quiet }),
    ];
    t.after(async () => {
      const pids = upstreams.flatMap((plugin) => {
        const pid = plugin.connection?.pid;
        return pid ? [pid, ...descendants(pid)] : [];
      });
      await Promise.all(upstreams.map((plugin) => plugin.dispose()));
      killAll(await waitUntilGone(pids, 10_000));
      await rm(dir, { recursive: true, force: true });
    });
    for (const [i, name] of ['everything', 'memory', 'filesystem'].entries()) {
      // Prefixed as mcp-proxy's auto_prefix does (`everything_echo` beside the echo plugin's `echo`).
      const loaded = await registry.loadPlugin(name, { module: upstreams[i], prefix: name });
      assert.equal(loaded.error, undefined, name);
    }
    for (const [query, owner, tool] of MIRRORED_QUERIES) {
      const top = index.search(query, { limit: 3 });
      assert.ok(
        top.some((hit) => hit.plugin === owner && hit.tool.name === tool),
        `top 3 for "${query}": ${top.map((hit) => `${hit.plugin}:${hit.tool.name}`).join(', ')}`,
      );
    }
  });
});

describe('words and stems', () => {
  test('names split on _, -, . and camelCase', () => {
    assert.deepEqual(splitWords('k8s_pod-logs.tail getUserById HTTPServer'), [
      'k',
      '8',
      's',
      'pod',
      'logs',
      'tail',
      'get',
      'User',
      'By',
      'Id',
      'HTTP',
      'Server',
    ]);
  });

  test('plural and verb endings meet on one stem', () => {
    for (const [a, b] of [
      ['files', 'file'],
      ['searching', 'search'],
      ['replies', 'reply'],
      ['merged', 'merge'],
      ['running', 'run'],
      ['matches', 'match'],
    ]) {
      assert.equal(stem(a), stem(b), `${a} ~ ${b}`);
    }
  });
});
