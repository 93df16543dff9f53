import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/server';
import type { Principal } from '../contract/principal.ts';
import { ConfigError } from '../errors.ts';
import { AccessControl } from './access.ts';
import { PolicyError } from './policy.ts';
import { parseAccessSettings } from './settings.ts';
import { TAGS_META_KEY, type ToolSubject } from './views.ts';

const person = (id: string, groups: string[], claims: Record<string, unknown> = {}): Principal => ({
  id: `sub:${id}`,
  kind: 'oauth',
  subject: id,
  scopes: [],
  groups,
  claims: { groups, ...claims },
});
const alice = person('alice', ['support']);
const dana = person('dana', ['data'], { projects: ['p1', 'p2'] });
const mallory = person('mallory', []);

function tool(name: string, plugin: string, extra: Partial<Tool> = {}): ToolSubject {
  return {
    name,
    plugin,
    definition: {
      name,
      inputSchema: {
        type: 'object',
        properties: { project: { type: 'string' }, q: { type: 'string' } },
        required: ['project'],
      },
      ...extra,
    },
  };
}

const CATALOG = [
  tool('tickets__open', 'tickets'),
  tool('tickets__close', 'tickets'),
  tool('warehouse__query', 'warehouse'),
  tool('kb__search', 'kb', { _meta: { [TAGS_META_KEY]: ['support'] } }),
  tool('admin__wipe', 'admin'),
];
const lookup = (name: string) => CATALOG.find((t) => t.name === name);
const listing = CATALOG.map((t) => t.definition);

const SETTINGS = {
  views: {
    support: {
      plugins: ['tickets'],
      tags: ['support'],
      rename: { kb__search: 'search_kb' },
      descriptions: { search_kb: 'Search the support knowledge base' },
      fixed_arguments: { kb__search: { project: 'support' } },
    },
    data: { tools: ['warehouse__*'] },
  },
  policy: {
    rules: [
      { name: 'support-team', allow: '"support" in principal.groups && tool.plugin != "admin"' },
      { name: 'data-team', tools: ['warehouse__*'], allow: '"data" in principal.groups' },
      {
        name: 'own-projects',
        tools: ['warehouse__*'],
        deny: '!(args.project in principal.claims.projects)',
        description: 'a project of your own',
      },
    ],
  },
};

const names = (tools: Tool[]) => tools.map((t) => t.name).sort();

describe('AccessControl', () => {
  const access = new AccessControl(parseAccessSettings(SETTINGS));

  test('a view lists its own tools, renamed, described and without fixed arguments', () => {
    const tools = access.listTools(alice, 'support', listing, lookup);
    assert.deepEqual(names(tools), ['search_kb', 'tickets__close', 'tickets__open']);
    const kb = tools.find((t) => t.name === 'search_kb')!;
    assert.equal(kb.description, 'Search the support knowledge base');
    assert.deepEqual(Object.keys(kb.inputSchema.properties ?? {}), ['q']);
    assert.deepEqual(kb.inputSchema.required, []);
    assert.equal(access.view('support')?.catalogName('search_kb'), 'kb__search');
    assert.equal(access.view('support')?.catalogName('kb__search'), undefined);
  });

  test('listing matches calling: listed exactly when no tool-level rule refuses the call', () => {
    // The same views and rules less the one that reads arguments: its decisions are tool-level.
    const toolLevel = new AccessControl(
      parseAccessSettings({
        ...SETTINGS,
        policy: { rules: SETTINGS.policy.rules.filter((r) => r.name !== 'own-projects') },
      }),
    );
    for (const who of [alice, dana, mallory]) {
      for (const view of [undefined, 'support', 'data']) {
        const listed = new Set(
          access
            .listTools(who, view, listing, lookup)
            .map((t) => access.view(view)?.catalogName(t.name) ?? t.name),
        );
        for (const t of CATALOG) {
          const admitted = toolLevel.admit(who, view, t, { project: 'p1' }).admitted;
          assert.equal(listed.has(t.name), admitted, `${who.id} ${view} ${t.name}`);
        }
      }
    }
  });

  test('an argument rule decides each call and names itself', () => {
    const query = lookup('warehouse__query')!;
    assert.equal(access.admit(dana, 'data', query, { project: 'p2' }).admitted, true);
    const refused = access.admit(dana, 'data', query, { project: 'p9' });
    assert.equal(refused.admitted, false);
    assert.ok(!refused.admitted && !refused.notInView);
    assert.equal(refused.rule, 'own-projects');
    assert.match(refused.reason, /own-projects.*a project of your own/);
  });

  test('a claim missing from the token makes an allow false and a deny deny, without throwing', () => {
    const noProjects = person('erin', ['data']);
    const refused = access.admit(noProjects, 'data', lookup('warehouse__query')!, {
      project: 'p1',
    });
    assert.ok(!refused.admitted && !refused.notInView);
    assert.match(refused.reason, /could not be evaluated.*projects.*denies/);
  });

  test('the view fixes its arguments over what the caller sent', () => {
    const admitted = access.admit(alice, 'support', lookup('kb__search')!, {
      project: 'x',
      q: 'y',
    });
    assert.deepEqual(admitted, {
      admitted: true,
      args: { project: 'support', q: 'y' },
      rule: 'support-team',
    });
  });

  test('nothing matches: the default denies, naming it', () => {
    const refused = access.admit(mallory, undefined, lookup('tickets__open')!, {});
    assert.ok(!refused.admitted && !refused.notInView);
    assert.match(refused.reason, /no policy rule allows it/);
  });

  test('explain shows every rule about the tool and the outcome', () => {
    const why = access.explain(dana, 'data', lookup('warehouse__query')!, { project: 'p9' });
    assert.equal(why.allowed, false);
    assert.equal(why.by, 'own-projects');
    assert.deepEqual(
      why.rules.map((r) => [r.name, r.state]),
      [
        ['support-team', 'false'],
        ['data-team', 'true'],
        ['own-projects', 'true'],
      ],
    );
    const listingWhy = access.explain(dana, 'data', lookup('warehouse__query')!);
    assert.equal(listingWhy.decided, 'listing');
    assert.equal(listingWhy.rules.find((r) => r.name === 'own-projects')?.state, 'undecided');
  });

  test('a rule that does not compile names itself, and the update changes nothing', () => {
    const bad = parseAccessSettings({
      policy: { rules: [{ name: 'typo', allow: 'principal.groups ==' }] },
    });
    assert.throws(
      () => access.update(bad),
      (error: unknown) => {
        assert.ok(error instanceof PolicyError);
        assert.match(error.message, /rule "typo"/);
        return true;
      },
    );
    const unknownVariable = parseAccessSettings({
      policy: { rules: [{ name: 'who', allow: 'user.id == "x"' }] },
    });
    assert.throws(() => access.update(unknownVariable), /rule "who": .*Unknown variable: user/);
    assert.deepEqual(names(access.listTools(alice, 'support', listing, lookup)).length, 3);
  });

  test('bad settings name the key', () => {
    assert.throws(
      () => parseAccessSettings({ views: { 'a/b': {} } }),
      (error: unknown) =>
        error instanceof ConfigError && /views\.a\/b: a view's name/.test(error.message),
    );
    assert.throws(
      () =>
        parseAccessSettings({ policy: { rules: [{ name: 'x', allow: 'true', deny: 'false' }] } }),
      /exactly one of allow, deny or approve/,
    );
    assert.throws(
      () => parseAccessSettings({ views: { v: { tool: ['x'] } } }),
      /views\.v: unknown tool/,
    );
  });

  test('a view a reload removed selects nothing, also with nothing else configured', () => {
    const reloaded = new AccessControl(parseAccessSettings(SETTINGS));
    reloaded.update(parseAccessSettings({}));
    assert.deepEqual(reloaded.listTools(alice, 'support', listing, lookup), []);
    assert.deepEqual(reloaded.admit(alice, 'support', CATALOG[0], {}), {
      admitted: false,
      notInView: true,
    });
    assert.equal(
      reloaded.selects('support', () => true),
      false,
    );
    assert.equal(reloaded.listTools(alice, undefined, listing, lookup), listing);
  });

  test('without views or policy, everything is listed and admitted as it is', () => {
    const open = new AccessControl();
    assert.equal(open.listTools(mallory, undefined, listing, lookup), listing);
    assert.deepEqual(open.admit(mallory, undefined, CATALOG[0], { a: 1 }), {
      admitted: true,
      args: { a: 1 },
    });
  });
});
