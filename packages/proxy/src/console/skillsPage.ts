/**
 * The console's Skills page: every skill the server serves (SEP-2640) with where it comes from —
 * a config `skills_dir`, a plugin, an upstream server, or saved from code by ipybox's
 * `save_skill` — and, for the skill picked (`?skill=`), its files with their sizes and digests
 * and the text of the file picked (`&file=`), escaped like everything the console shows. It reads
 * the server's skill registry (`server.skills`), the same one `skills/list` serves, so the page
 * shows what clients see.
 *
 * @module
 */
import type { ServedSkill, SkillOrigin, SkillRegistry } from '@mcpbox/framework';
import type { ServerContext } from '@modelcontextprotocol/server';
import { type Html, html } from './html.ts';

/** Skill files are read outside any MCP request: folder origins do not look at it. */
const NO_REQUEST = {} as ServerContext;

const SOURCE_LABELS: Record<SkillOrigin['kind'], string> = {
  config: 'config',
  plugin: 'plugin',
  upstream: 'upstream',
  saved: 'saved from code',
};

/** The shown text of a file is cut here: the page is a view, clients read the whole file. */
const MAX_SHOWN = 200_000;

function link(query: Record<string, string>): string {
  return `/console/skills?${new URLSearchParams(query)}`;
}

function sourceCell(skill: ServedSkill, origins: SkillOrigin[]): Html {
  const origin = origins.find((o) => o.origin === skill.origin);
  return html`<span class="pill skill-${skill.kind}">${SOURCE_LABELS[skill.kind]}</span> <span class="muted">${origin?.label ?? skill.origin}</span>`;
}

function fileCount(skill: ServedSkill): string {
  return skill.resources === 'dynamic' ? 'dynamic' : String(skill.resources.length);
}

function skillsTable(skills: ServedSkill[], origins: SkillOrigin[]): Html {
  const rows = skills.map(
    (s) =>
      html`<tr data-skill="${s.name}"><td><a href="${link({ skill: s.name })}"><code>${s.name}</code></a></td><td>${s.description}</td><td>${sourceCell(s, origins)}</td><td>${fileCount(s)}</td></tr>`,
  );
  return html`<table id="skills"><thead><tr><th>Name</th><th>Description</th><th>Source</th><th>Files</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The path of a file of `skill` inside its folder (`references/GUIDE.md`). */
function pathIn(skill: ServedSkill, uri: string): string {
  const root = `${skill.uri.slice(0, skill.uri.lastIndexOf('/'))}/`;
  return uri.startsWith(root) ? uri.slice(root.length) : uri;
}

async function fileView(registry: SkillRegistry, uri: string, path: string): Promise<Html> {
  const read = await registry.source.read(uri, NO_REQUEST).catch((error: Error) => error);
  if (read instanceof Error)
    return html`<p class="error">${path} cannot be read: ${read.message}</p>`;
  if (read === undefined) return html`<p class="error">${path} is not served.</p>`;
  if (!('text' in read)) {
    return html`<p class="muted" id="skill-file">${path}: binary (${read.bytes.length} bytes), not shown.</p>`;
  }
  const cut = read.text.length > MAX_SHOWN;
  return html`<h3><code>${path}</code></h3><pre id="skill-file">${cut ? read.text.slice(0, MAX_SHOWN) : read.text}</pre>${
    cut ? html`<p class="muted">Cut at ${MAX_SHOWN} characters.</p>` : ''
  }`;
}

async function skillView(
  registry: SkillRegistry,
  skill: ServedSkill,
  origins: SkillOrigin[],
  file: string | null,
): Promise<Html> {
  const head = html`<h2>${skill.name}</h2><p>${skill.description}</p><p>${sourceCell(skill, origins)} <code>${skill.uri}</code></p>`;
  if (skill.resources === 'dynamic') {
    return html`${head}<p class="muted">Its files are listed by its source on demand (dynamic).</p>`;
  }
  const rows = skill.resources.map((r) => {
    const path = pathIn(skill, r.uri);
    return html`<tr data-file="${path}"><td><a href="${link({ skill: skill.name, file: path })}"><code>${path}</code></a></td><td>${r.size ?? ''}</td><td><code title="${r.digest ?? ''}">${(r.digest ?? '').slice(0, 19)}…</code></td></tr>`;
  });
  const picked = file ?? 'SKILL.md';
  const entry = skill.resources.find((r) => pathIn(skill, r.uri) === picked);
  const shown = entry
    ? await fileView(registry, entry.uri, picked)
    : html`<p class="error">${skill.name} has no file ${picked}.</p>`;
  return html`${head}<table id="skill-files"><thead><tr><th>File</th><th>Bytes</th><th>Digest</th></tr></thead><tbody>${rows}</tbody></table>${shown}`;
}

/** The page: every served skill; with `?skill=`, that skill's files and one file's text. */
export async function skillsPage(
  registry: SkillRegistry | undefined,
  query: URLSearchParams,
): Promise<Html> {
  if (registry === undefined) return html`<p class="muted">This server serves no skills.</p>`;
  const skills = registry.list();
  const origins = registry.origins();
  const intro = html`<p class="muted">Skills (SEP-2640) served to clients with <code>skills/list</code>: from a config <code>skills_dir</code>, plugins, upstream servers, and code saved with ipybox's <code>save_skill</code>.</p>`;
  const shadowed = registry.shadowed();
  const hidden =
    shadowed.length === 0
      ? ''
      : html`<h2>Not served</h2><ul id="shadowed">${shadowed.map(
          (s) =>
            html`<li><code>${s.name}</code> of ${s.origin}: ${s.servedBy} serves that name</li>`,
        )}</ul>`;
  if (skills.length === 0) {
    return html`${intro}<p class="muted" id="no-skills">No skill is served.</p>${hidden}`;
  }
  const name = query.get('skill');
  const picked = name === null ? undefined : skills.find((s) => s.name === name);
  const detail =
    name === null
      ? ''
      : picked
        ? await skillView(registry, picked, origins, query.get('file'))
        : html`<p class="error">No skill named ${name} is served.</p>`;
  return html`${intro}${skillsTable(skills, origins)}${hidden}${detail}`;
}
