/**
 * What `mcp-proxy reload-policy`, `explain` and `principals` print, and the `proxy__*` tools
 * answer: readable text from the management API's JSON (the CLI sees nothing else). Kept free
 * of the framework, as `cliText.ts` is, so the CLI declares its commands without the server.
 *
 * @module
 */

export interface NameChangesBody {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface ReloadBody {
  file: string;
  views: number;
  rules: number;
  changed: { views: NameChangesBody; rules: NameChangesBody; keys?: NameChangesBody };
  keysNote?: string;
}

export interface ExplainBody {
  principal: { id: string; kind: string; groups: string[]; scopes: string[]; claimKeys: string[] };
  seen: boolean;
  view: string | null;
  explanation?: {
    tool: string;
    listedAs: string;
    inView: boolean;
    rules: Array<{
      name: string;
      effect: string;
      expression: string;
      state: string;
      error?: string;
    }>;
    default?: string;
    decided: 'listing' | 'call';
    allowed: boolean;
    by: string;
    reason?: string;
  };
  tools?: string[];
}

export interface PrincipalsBody {
  principals: Array<{
    id: string;
    kind: string;
    groups: string[];
    views: string[];
    requests: number;
    calls: number;
    refusals: number;
    lastSeen: number;
  }>;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function changesText(what: string, changes: NameChangesBody): string | undefined {
  const parts = (['added', 'changed', 'removed'] as const)
    .filter((kind) => changes[kind].length > 0)
    .map((kind) => `${kind} ${changes[kind].join(', ')}`);
  return parts.length === 0 ? undefined : `${what} ${parts.join('; ')}`;
}

/** `Policy reloaded from /etc/mcp/proxy.yaml: 1 view, 2 rules (rules: added ops).` */
export function reloadText(body: ReloadBody): string {
  const changes = [
    changesText('views', body.changed.views),
    changesText('rules', body.changed.rules),
    body.changed.keys && changesText('API keys', body.changed.keys),
  ].filter(Boolean);
  const what = changes.length === 0 ? 'nothing changed' : changes.join('; ');
  const text = `Policy reloaded from ${body.file}: ${plural(body.views, 'view')}, ${plural(body.rules, 'rule')} (${what}).`;
  return body.keysNote ? `${text}\n${body.keysNote}.` : text;
}

const viewText = (view: string | null) => (view === null ? 'the whole catalog' : `view "${view}"`);

function principalText(body: ExplainBody): string {
  const p = body.principal;
  const groups = p.groups.length ? p.groups.join(', ') : 'none';
  const claims = p.claimKeys.length ? p.claimKeys.join(', ') : 'none';
  const source = body.seen ? 'as last seen' : 'not seen lately: as given';
  return `${p.id} (${p.kind}, ${source}); groups: ${groups}; claims: ${claims}`;
}

/** Each rule's part, then the outcome and why. */
export function explainText(body: ExplainBody): string {
  const lines = [`Principal: ${principalText(body)}`, `Through:   ${viewText(body.view)}`];
  const e = body.explanation;
  if (e === undefined) {
    const tools = body.tools ?? [];
    lines.push(`Sees ${plural(tools.length, 'tool')}: ${tools.join(', ') || '(none)'}`);
    return lines.join('\n');
  }
  const renamed = e.listedAs === e.tool ? '' : ` (listed as ${e.listedAs})`;
  lines.push(`Tool:      ${e.tool}${renamed}${e.inView ? '' : ' — not in this view'}`);
  if (e.rules.length === 0) lines.push('Rules:     none is about this tool');
  else {
    lines.push('Rules:');
    const width = Math.max(...e.rules.map((r) => r.name.length));
    for (const rule of e.rules) {
      const why = rule.error === undefined ? '' : ` (${rule.error})`;
      lines.push(
        `  ${rule.name.padEnd(width)}  ${rule.effect.padEnd(5)}  ${rule.state.padEnd(9)}  ${rule.expression}${why}`,
      );
    }
  }
  if (e.default !== undefined) lines.push(`Default:   ${e.default}`);
  const as = e.decided === 'call' ? 'a call with these arguments' : 'listing (no arguments given)';
  const outcome = e.allowed
    ? `ALLOWED (${e.by === 'no policy' ? 'no policy' : e.by === 'default' ? 'the default' : `rule "${e.by}"`})`
    : `DENIED: ${e.reason ?? e.by}`;
  lines.push(`Outcome:   ${outcome}, decided as ${as}`);
  return lines.join('\n');
}

const ago = (time: number, now: number) => {
  const s = Math.max(0, Math.round((now - time) / 1000));
  return s < 60
    ? `${s}s ago`
    : s < 3600
      ? `${Math.round(s / 60)}m ago`
      : `${Math.round(s / 3600)}h ago`;
};

/** One principal a line, most recently seen first. */
export function principalsText(body: PrincipalsBody, now = Date.now()): string {
  if (body.principals.length === 0) return '(no principal seen yet)';
  const width = Math.max(...body.principals.map((p) => p.id.length));
  return body.principals
    .map((p) => {
      const views = p.views.map((v) => (v === '' ? '/mcp' : v)).join(', ');
      return `${p.id.padEnd(width)}  ${p.kind.padEnd(9)}  groups: ${p.groups.join(', ') || '—'}  views: ${views || '—'}  calls: ${p.calls}  refused: ${p.refusals}  ${ago(p.lastSeen, now)}`;
    })
    .join('\n');
}
