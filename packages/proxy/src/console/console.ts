/**
 * mcp-proxy's web console, served by the management server at `/` and `/console/*`:
 * server-rendered pages (plugins, calls, health, gate, access, pins, skills, and every admin section plugins publish,
 * e.g. ipybox's approvals and kernels) with a little script, and forms for every change.
 *
 * Protection (the management server already refused non-loopback `Host`s and cross-site
 * changes, see `origin.ts`): pages need the session cookie of a log-in with the management token
 * (`sessions.ts`); every change (POST) needs the cookie and the session's CSRF token in the form
 * or the `X-CSRF-Token` header. The token never appears in a page, a URL or browser storage.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type AdminSection,
  type AdminSurface,
  createLogger,
  errorMessage,
  type Gate,
  type ServerCounters,
  type SkillRegistry,
  type TappedCall,
  type ToolCallTap,
} from '@mcpbox/framework';
import { readText } from '../management/body.ts';
import { HttpError } from '../management/errors.ts';
import type { PluginManager } from '../proxy/manager.ts';
import { accessPage, explainFromForm, reloadPolicyAction } from './accessPage.ts';
import { approvalAction, approvalsPage, isApprovalAction } from './approvalsPage.ts';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.ts';
import { CallRates } from './callRates.ts';
import { callView, streamCalls } from './feed.ts';
import { type Html, html, type NavEntry, page } from './html.ts';
import { LoginThrottle } from './loginThrottle.ts';
import {
  adminPage,
  CONSOLE_PAGES,
  callsPage,
  gatePage,
  healthPage,
  type LoadedView,
  loginPage,
  pluginsPage,
} from './pages.ts';
import { pinActionAt, pinsPage, runPinAction } from './pinsPage.ts';
import { pluginActionAt, runPluginAction } from './pluginActions.ts';
import { isTls, redirect, sendAsset, sendHtml, sendText } from './respond.ts';
import { type ConsoleSession, ConsoleSessions, csrfMatches, sessionCookie } from './sessions.ts';
import { skillsPage } from './skillsPage.ts';

export interface WebConsoleOptions {
  manager: PluginManager;
  /** The management token; without one the console is open to loopback visitors. */
  token?: string;
  /** Where tool calls come from (the feed and the rate charts); none: both stay empty. */
  tap?: ToolCallTap;
  /** The MCP server's counters (requests, errors, sessions). */
  stats?: ServerCounters;
  /** The server-level gate, when one is configured. */
  gate?: Gate;
  /** The skills the server serves, by origin (the Skills page). */
  skills?: SkillRegistry;
  clock?: () => number;
}

const log = createLogger('console');

export class WebConsole {
  readonly #options: WebConsoleOptions;
  readonly #sessions: ConsoleSessions;
  readonly #throttle: LoginThrottle;
  readonly #rates = new CallRates();
  readonly #clock: () => number;
  readonly #startedAt: number;
  /** Surfaces this console opened (as an approval client, say), and how to close them. */
  readonly #opened = new Map<AdminSurface, () => void>();
  /** Open live feeds, by the session that opened them (logging out ends its feeds). */
  readonly #streams = new Map<ServerResponse, string>();
  readonly #stop: Array<() => void> = [];

  constructor(options: WebConsoleOptions) {
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#startedAt = this.#clock();
    this.#sessions = new ConsoleSessions(options.token, this.#clock);
    this.#throttle = new LoginThrottle(this.#clock);
    if (options.tap) {
      for (const call of options.tap.recent()) this.#rates.add(call);
      this.#stop.push(options.tap.subscribe((call) => this.#onCall(call)));
    }
    const registry = options.manager.registry;
    this.#syncSurfaces();
    this.#stop.push(registry.onAdminChange(() => this.#syncSurfaces()));
  }

  /** Whether `path` is the console's (the rest belongs to the REST API). */
  handles(path: string): boolean {
    return path === '' || path === '/' || path === '/console' || path.startsWith('/console/');
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    try {
      await this.#route(req, res, path.replace(/\/+$/, ''));
    } catch (error) {
      if (res.headersSent) return void res.end();
      if (error instanceof HttpError) return sendText(res, error.status, error.message);
      log.error(`console request ${req.method} ${path} failed`, error as Error);
      sendText(res, 500, 'internal error');
    }
  }

  /** Ends the live feeds and stops being an approval client. */
  close(): void {
    for (const stop of this.#stop.splice(0)) stop();
    for (const close of this.#opened.values()) close();
    this.#opened.clear();
    for (const stream of this.#streams.keys()) stream.end();
    this.#streams.clear();
  }

  async #route(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const method = req.method ?? 'GET';
    if (method === 'GET' && path === '/console/console.css') {
      return sendAsset(res, 'text/css', CONSOLE_CSS);
    }
    if (method === 'GET' && path === '/console/console.js') {
      return sendAsset(res, 'text/javascript', CONSOLE_JS);
    }
    if (path === '/console/login') return this.#login(req, res, method);

    let session = this.#sessions.of(req);
    if (session === undefined && !this.#sessions.needsToken && method === 'GET') {
      // No token configured: loopback visitors are trusted, as by the REST API.
      session = this.#sessions.login(undefined)!;
      res.setHeader('set-cookie', sessionCookie(session, isTls(req)));
    }
    if (session === undefined) {
      if (method === 'GET' || method === 'HEAD') return redirect(res, '/console/login');
      return sendText(res, 401, 'not logged in: log in at /console/login first');
    }
    if (method === 'POST') return this.#change(req, res, path, session);
    if (method !== 'GET' && method !== 'HEAD') {
      return sendText(res, 405, `method ${method} not allowed`);
    }
    if (path === '' || path === '/console') return redirect(res, '/console/plugins');
    if (path === '/console/events') {
      this.#streams.set(res, session.id);
      return streamCalls(req, res, this.#options.tap, () => this.#streams.delete(res));
    }
    const query = new URL(req.url ?? '/', 'http://console').searchParams;
    const body = await this.#pageBody(path, session, query);
    if (body === undefined) return sendText(res, 404, `no such page: ${path}`);
    const flash = session.flash;
    session.flash = undefined;
    sendHtml(
      res,
      200,
      page({
        title: body.title,
        path,
        nav: this.#nav(),
        csrf: session.csrf,
        flash,
        live: body.live,
        body: body.html,
      }),
    );
  }

  async #pageBody(
    path: string,
    session: ConsoleSession,
    query: URLSearchParams,
  ): Promise<{ title: string; html: Html; live?: boolean } | undefined> {
    const { manager, gate, tap } = this.#options;
    switch (path) {
      case '/console/plugins':
        return {
          title: 'Plugins',
          html: pluginsPage(
            this.#loadedViews(),
            await manager.available(),
            manager.lastErrors,
            session.csrf,
          ),
        };
      case '/console/calls':
        return { title: 'Tool calls', html: callsPage((tap?.recent() ?? []).map(callView)) };
      case '/console/health':
        return { title: 'Health', html: healthPage(this.#health()), live: true };
      case '/console/gate':
        return { title: 'Gate', html: gatePage(gate?.snapshot(), session.csrf), live: true };
      case '/console/access':
        return { title: 'Access', html: await this.#access(query, session.csrf) };
      case '/console/approvals': {
        const body = await approvalsPage(manager, session.csrf, this.#clock());
        return { title: 'Approvals', html: body, live: true };
      }
      case '/console/pins':
        return { title: 'Pins', html: await pinsPage(manager, session.csrf), live: true };
      case '/console/skills':
        return { title: 'Skills', html: await skillsPage(this.#options.skills, query) };
    }
    const admin = /^\/console\/admin\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(path);
    if (!admin) return undefined;
    const [plugin, name, sectionId] = admin.slice(1).map(decodeURIComponent);
    const found = this.#section(plugin, name, sectionId);
    if (!found) return undefined;
    return {
      title: `${found.surface.title}: ${found.section.title}`,
      html: await adminPage({ plugin, name }, found.section, session.csrf),
      live: true,
    };
  }

  async #change(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    session: ConsoleSession,
  ): Promise<void> {
    const form = new URLSearchParams(await readText(req));
    const csrf = (req.headers['x-csrf-token'] as string | undefined) ?? form.get('csrf') ?? '';
    if (!csrfMatches(session, csrf)) {
      return sendText(res, 403, 'missing or wrong CSRF token: reload the page and try again');
    }
    if (path === '/console/logout') {
      this.#sessions.logout(session);
      for (const [stream, owner] of this.#streams) if (owner === session.id) stream.end();
      res.setHeader('set-cookie', sessionCookie(undefined, isTls(req)));
      return redirect(res, '/console/login');
    }
    const field = (name: string) => {
      const value = form.get(name);
      if (value === null) throw new HttpError(400, `missing form field '${name}'`);
      return value;
    };
    let back = '/console/plugins';
    const action = pluginActionAt(path);
    const decision = pinActionAt(path);
    if (action) {
      session.flash = await runPluginAction(this.#options.manager, action, field('plugin'));
    } else if (decision) {
      back = '/console/pins';
      const given = (name: string) => form.get(name) || undefined;
      session.flash = await runPinAction(this.#options.manager, decision, given);
    } else if (path === '/console/access/reload') {
      back = '/console/access';
      session.flash = await reloadPolicyAction(this.#options.manager);
    } else if (isApprovalAction(path)) {
      back = '/console/approvals';
      session.flash = await approvalAction(this.#options.manager, path, field('id'));
    } else if (path === '/console/gate/lock') {
      back = '/console/gate';
      const gate = this.#options.gate;
      if (gate === undefined) throw new HttpError(400, 'no gate is configured');
      const answer = gate.lock(field('group'));
      session.flash = { ok: answer.ok, text: answer.message };
    } else if (path === '/console/admin/act') {
      const [name, surfaceName, sectionId] = [field('plugin'), field('name'), field('section')];
      back = `/console/admin/${[name, surfaceName, sectionId].map(encodeURIComponent).join('/')}`;
      const found = this.#section(name, surfaceName, sectionId);
      if (!found) throw new HttpError(404, `${name} publishes no ${surfaceName}/${sectionId}`);
      session.flash = await found.section.act(field('row'), field('action')).then(
        (text) => ({ ok: true, text }),
        (error) => ({ ok: false, text: errorMessage(error) }),
      );
    } else {
      return sendText(res, 404, `no such action: ${path}`);
    }
    redirect(res, back);
  }

  #login(req: IncomingMessage, res: ServerResponse, method: string): Promise<void> | void {
    if (!this.#sessions.needsToken) return redirect(res, '/console/plugins');
    if (method === 'GET') return sendHtml(res, 200, loginPage(undefined));
    if (method !== 'POST') return sendText(res, 405, `method ${method} not allowed`);
    const address = req.socket.remoteAddress ?? 'unknown';
    return readText(req).then((text) => {
      // Checked and counted in one turn with the comparison: parallel guesses cannot slip by.
      const waitMs = this.#throttle.waitMs(address);
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        res.setHeader('retry-after', String(seconds));
        const why = `Too many wrong tokens from this address: try again in ${seconds} s.`;
        return sendHtml(res, 429, loginPage(why));
      }
      const token = new URLSearchParams(text).get('token') ?? undefined;
      const session = this.#sessions.login(token);
      if (session === undefined) {
        this.#throttle.failed(address);
        log.warn(`console: a log-in with a wrong token from ${address} was refused`);
        return sendHtml(res, 401, loginPage('Wrong token: nothing was shown or changed.'));
      }
      this.#throttle.succeeded(address);
      res.setHeader('set-cookie', sessionCookie(session, isTls(req)));
      redirect(res, '/console/plugins');
    });
  }

  #health() {
    const { stats, manager, tap } = this.#options;
    const rates = this.#rates.series();
    const since = rates[0]?.start ?? 0;
    const summary = manager.registry.getSummary();
    return {
      uptimeMs: this.#clock() - this.#startedAt,
      legacySessions: stats?.sessions ?? 0,
      statelessCalls: (tap?.recent() ?? []).filter(
        (c) => c.time >= since && c.sessionId === undefined,
      ).length,
      requests: stats?.requests ?? 0,
      errors: stats?.errors ?? 0,
      plugins: summary.totals.plugins,
      tools: summary.totals.tools,
      rates,
      slotMs: this.#rates.slotMs,
    };
  }

  async #access(query: URLSearchParams, csrf: string): Promise<Html> {
    const { manager } = this.#options;
    const admin = manager.access;
    if (admin === undefined) return html`<p class="muted">Views and policy are not available.</p>`;
    const principals = admin.principals();
    const usage = await admin.usage(principals.map((p) => p.id));
    const view = {
      principals,
      settings: admin.access.settings,
      now: this.#clock(),
      ...(usage && { usage: (id: string) => usage.get(id) }),
      query,
      answer: await explainFromForm(manager, query),
    };
    return accessPage(view, csrf);
  }

  #loadedViews(): LoadedView[] {
    return this.#options.manager.registry.plugins().map((p) => ({
      name: p.name,
      internal: p.internal,
      prefix: p.prefix,
      source:
        p.source.kind === 'file'
          ? p.source.path
          : p.source.kind === 'package'
            ? p.source.specifier
            : 'built in / configured',
      // Names only: values may be secrets.
      configKeys: Object.keys(p.config),
      tools: p.tools,
      resources: p.resources,
      prompts: p.prompts,
      loadedAt: p.loadedAt,
    }));
  }

  #nav(): NavEntry[] {
    const nav: NavEntry[] = [...CONSOLE_PAGES];
    for (const { plugin, name, surface } of this.#options.manager.registry.adminSurfaces()) {
      for (const section of surface.sections) {
        const href = `/console/admin/${[plugin, name, section.id].map(encodeURIComponent).join('/')}`;
        nav.push({ href, label: `${plugin}: ${section.title}` });
      }
    }
    return nav;
  }

  #section(
    plugin: string,
    name: string,
    sectionId: string,
  ): { surface: AdminSurface; section: AdminSection } | undefined {
    const published = this.#options.manager.registry
      .adminSurfaces()
      .find((p) => p.plugin === plugin && p.name === name);
    const section = published?.surface.sections.find((s) => s.id === sectionId);
    return published && section ? { surface: published.surface, section } : undefined;
  }

  /** Opens surfaces that appeared (this console decides their approvals), closes those gone. */
  #syncSurfaces(): void {
    const current = new Set(this.#options.manager.registry.adminSurfaces().map((p) => p.surface));
    for (const [surface, close] of this.#opened) {
      if (!current.has(surface)) {
        close();
        this.#opened.delete(surface);
      }
    }
    for (const surface of current) {
      if (!this.#opened.has(surface)) this.#opened.set(surface, surface.open?.() ?? (() => {}));
    }
  }

  #onCall(call: TappedCall): void {
    this.#rates.add(call);
  }
}
