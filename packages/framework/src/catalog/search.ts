/**
 * One ranked search over the catalog's tools, shared by code mode's `search_tools`, the
 * `CatalogView` plugins see and `proxy__run`'s "did you mean".
 *
 * MiniSearch (BM25+) over the tool name split into words (`_`, `-`, `.`, camelCase), title,
 * description, parameter names and descriptions, and the owning plugin; names weigh most. Terms
 * are lower-cased and lightly stemmed (plural and verb endings) so "files" finds `read_file` and
 * "searching" finds `search_notes`; long terms match by prefix and with small typos.
 *
 * The index is rebuilt lazily: a catalog change only marks it stale, the next search rebuilds
 * (one build per change, however many searches follow; none while nobody searches).
 *
 * @module
 */
import type { Tool } from '@modelcontextprotocol/server';
import type MiniSearch from 'minisearch';
import { miniSearch } from '../lazy.ts';
import type { Catalog } from './catalog.ts';
import type { ToolEntry } from './types.ts';

/** A tool found by a search, with its owner and relevance (higher is better). */
export interface ToolSearchHit {
  plugin: string;
  tool: Tool;
  score: number;
}

export interface ToolSearchOptions {
  /** At most this many hits; default 10. */
  limit?: number;
  /** Only tools owned by these plugins (or mirrored servers). */
  plugins?: readonly string[];
}

interface ToolDocument {
  id: string;
  name: string;
  title: string;
  description: string;
  params: string;
  plugin: string;
}

/** Words that say nothing about which tool is meant ("how do I get the list of my files"). */
const STOP_WORDS = new Set(
  (
    'a an and are as at be by can do does for from get give how i in into is it its me my of on ' +
    'or please show some that the their them this to tool use using want what which with you your'
  ).split(' '),
);

/**
 * Splits text into words: on anything not a letter or digit, and at camelCase and
 * letter-digit boundaries (`getUserById` → get, user, by, id; `utf8Encode` → utf, 8, encode).
 */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([a-zA-Z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * A light suffix stripper (not Porter: tool vocabulary is short and technical, and a full
 * stemmer merges words users keep apart, like "organ"/"organization"). Applied to documents and
 * queries alike, so both sides meet on the same stem.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && /(ches|shes|sses|xes|zes)$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = undouble(w.slice(0, -3));
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = undouble(w.slice(0, -2));
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** "running" → "runn" → "run"; "listing" → "list" stays. */
function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  return stem(lower);
}

/**
 * What users say → what tool descriptions tend to say. Added to a query beside its own words,
 * at half weight, so "make the picture smaller" also asks for "image resize scale" and
 * "book a meeting" for "schedule event". A key is one lower-case word; its value, the words it
 * adds.
 */
const SYNONYMS: Readonly<Record<string, string>> = {
  appointment: 'event meeting',
  meeting: 'event',
  book: 'schedule create',
  picture: 'image',
  photo: 'image',
  pic: 'image',
  smaller: 'resize scale',
  bigger: 'resize scale',
  shrink: 'resize scale compress',
  enlarge: 'resize scale',
  money: 'payment refund charge',
  pay: 'payment charge',
  reimburse: 'refund',
  route: 'directions',
  remove: 'delete',
  erase: 'delete',
  lookup: 'search find',
  find: 'search',
  mail: 'email',
  ticket: 'issue',
  bug: 'issue',
  pr: 'pull request',
  repo: 'repository',
  vm: 'instance virtual machine',
  server: 'instance',
  holiday: 'vacation time off',
  pto: 'vacation time off',
  leave: 'vacation time off',
  parcel: 'shipment package tracking',
  package: 'shipment parcel tracking',
  spend: 'cost bill',
  spent: 'cost bill',
  bill: 'cost invoice',
  db: 'database',
  note: 'message comment',
  say: 'message post',
  tell: 'message send',
  ping: 'message',
  table: 'sheet',
  spreadsheet: 'sheet',
  outage: 'incident alert',
  down: 'incident outage',
  crash: 'error logs',
  duplicate: 'merge',
  folder: 'directory',
  directory: 'folder',
  add: 'sum plus create',
  total: 'sum',
  plus: 'sum add',
};

/**
 * Distinct words a query is searched with, at most: a pasted paragraph costs a few milliseconds
 * instead of hundreds (every word is a prefix and fuzzy lookup).
 */
const MAX_QUERY_WORDS = 32;
/** Queries of more words than this are searched without typo tolerance. */
const FUZZY_QUERY_WORDS = 8;

/** The query's own distinct words, then the synonyms of those words (see {@link SYNONYMS}). */
function expandQuery(query: string): { text: string; ownTerms: number } {
  const seen = new Set<string>();
  const words = splitWords(query)
    .filter((word) => {
      const key = word.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, MAX_QUERY_WORDS);
  const ownTerms = words.filter((word) => processTerm(word) !== null).length;
  const added: string[] = [];
  for (const word of words) {
    const synonyms = SYNONYMS[word.toLowerCase()];
    if (synonyms) added.push(...synonyms.split(' '));
  }
  return { text: [...words, ...added].join(' '), ownTerms };
}

const SEARCH_OPTIONS = {
  boost: { name: 4, title: 2, description: 1, params: 0.6, plugin: 1.5 },
  // Prefix and typo matches for longer words only: "del" should not match everything.
  prefix: (term: string) => term.length >= 4,
  fuzzy: (term: string) => (term.length >= 6 ? 0.2 : false),
  weights: { fuzzy: 0.3, prefix: 0.5 },
  combineWith: 'OR',
} as const;

/** The text of a tool's parameters: each name (split into words) and its description. */
function parameterText(tool: Tool): string {
  const properties = (tool.inputSchema as { properties?: Record<string, unknown> } | undefined)
    ?.properties;
  if (!properties || typeof properties !== 'object') return '';
  const parts: string[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    parts.push(name);
    const description = (schema as { description?: unknown } | null)?.description;
    if (typeof description === 'string') parts.push(description);
  }
  return parts.join(' ');
}

function documentOf(entry: ToolEntry): ToolDocument {
  const tool = entry.definition;
  const title = tool.title ?? tool.annotations?.title ?? '';
  return {
    id: entry.name,
    name: entry.name,
    title,
    description: tool.description ?? '',
    params: parameterText(tool),
    plugin: entry.plugin,
  };
}

/** The catalog's tools as a search index, rebuilt on the first search after a change. */
export class ToolSearchIndex {
  readonly #catalog: Catalog;
  #index: MiniSearch<ToolDocument> | undefined;
  /** The entries indexed, by name, so hits return the live definitions of that build. */
  #entries = new Map<string, ToolEntry>();

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
    catalog.onChange((kinds) => {
      if (kinds.has('tools')) this.#index = undefined;
    });
  }

  /** Best first; `[]` for an empty or stop-word-only query or no hits. */
  search(query: string, options: ToolSearchOptions = {}): ToolSearchHit[] {
    const limit = Math.max(0, Math.floor(options.limit ?? 10));
    if (limit === 0 || query.trim() === '') return [];
    const index = this.#build();
    const owners = options.plugins === undefined ? undefined : new Set(options.plugins);
    const { text, ownTerms } = expandQuery(query);
    const results = index.search(text, {
      ...SEARCH_OPTIONS,
      // Terms past the query's own are synonyms: they count, but less.
      boostTerm: (_term, i) => (i < ownTerms ? 1 : 0.5),
      // Typos are looked for in short queries only: in a long one the other words carry it, and
      // each fuzzy lookup walks the whole term tree.
      fuzzy: ownTerms <= FUZZY_QUERY_WORDS ? SEARCH_OPTIONS.fuzzy : false,
      filter: owners
        ? (result) => owners.has(this.#entries.get(result.id)?.plugin ?? '')
        : undefined,
    });
    const hits: ToolSearchHit[] = [];
    for (const result of results) {
      const entry = this.#entries.get(result.id);
      if (!entry?.enabled) continue;
      hits.push({ plugin: entry.plugin, tool: entry.definition, score: result.score });
      if (hits.length >= limit) break;
    }
    return hits;
  }

  #build(): MiniSearch<ToolDocument> {
    if (this.#index) return this.#index;
    const index = new (miniSearch())<ToolDocument>({
      fields: ['name', 'title', 'description', 'params', 'plugin'],
      tokenize: splitWords,
      processTerm,
    });
    const entries = new Map<string, ToolEntry>();
    for (const entry of this.#catalog.tools()) {
      if (!entry.enabled) continue;
      entries.set(entry.name, entry);
    }
    index.addAll([...entries.values()].map(documentOf));
    this.#entries = entries;
    this.#index = index;
    return index;
  }
}
