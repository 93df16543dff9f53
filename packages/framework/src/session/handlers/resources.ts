/**
 * A session's resource methods: listing resources and templates, reading one, and the 2025
 * subscriptions that decide which `resources/updated` notifications this client gets.
 *
 * @module
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  ResourceNotFoundError,
} from '@modelcontextprotocol/server';
import type { ResourceReturn } from '../../contract/plugin.ts';
import type { SessionHost } from './host.ts';

function toReadResult(uri: string, value: ResourceReturn): ReadResourceResult {
  return typeof value === 'string' ? { contents: [{ uri, text: value }] } : value;
}

function parseUri(uri: string): URL {
  try {
    return new URL(uri);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid resource URI: ${uri}`);
  }
}

export function registerResourceHandlers(host: SessionHost): void {
  const { server, catalog, access, counted } = host;
  /** Whether the request's view includes a resource (or template) of `plugin`. */
  const inView = (view: string | undefined, uri: string, plugin: string | undefined) =>
    plugin !== undefined && access.selects(view, (v) => v.includesResource(uri, plugin));

  server.setRequestHandler(
    'resources/list',
    counted(async (_request, extra) => {
      const listed: Resource[] = catalog
        .listResources()
        .filter((r) => inView(extra.view, r.uri, catalog.getResource(r.uri)?.plugin));
      // Templates with a `list` callback contribute their concrete resources, as in McpServer.
      for (const entry of catalog.templateEntries()) {
        if (!inView(extra.view, entry.uriTemplate, entry.plugin)) continue;
        const list = entry.template.listCallback;
        if (!list) continue;
        const result = await list(extra);
        for (const resource of result.resources) listed.push({ ...entry.definition, ...resource });
      }
      return { resources: listed };
    }),
  );

  server.setRequestHandler(
    'resources/templates/list',
    counted(async (_request, extra) => ({
      resourceTemplates: catalog
        .listTemplates()
        .filter((t) =>
          inView(extra.view, t.uriTemplate, catalog.getTemplate(t.uriTemplate)?.plugin),
        ),
    })),
  );

  server.setRequestHandler(
    'resources/read',
    counted(async (request, extra) => {
      const raw = request.params.uri;
      const url = parseUri(raw);
      const resource = catalog.getResource(raw) ?? catalog.getResource(url.href);
      if (resource && inView(extra.view, resource.uri, resource.plugin)) {
        if (!resource.enabled) {
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource ${raw} disabled`);
        }
        return toReadResult(raw, await resource.read(url, extra));
      }
      const match = catalog.matchTemplate(raw);
      if (match && inView(extra.view, match.entry.uriTemplate, match.entry.plugin))
        return toReadResult(raw, await match.entry.read(url, match.variables, extra));
      // -32602 with `data.uri` in both eras (2026-07-28 SEP-2164; the SDK's own error type).
      throw new ResourceNotFoundError(raw, `Resource ${raw} not found`);
    }),
  );
}

/** `resources/subscribe` and `unsubscribe` keep the client's URIs in `subscriptions`. */
export function registerSubscriptionHandlers(host: SessionHost, subscriptions: Set<string>): void {
  const { server, counted } = host;
  server.setRequestHandler(
    'resources/subscribe',
    counted(async (request) => {
      subscriptions.add(request.params.uri);
      return {};
    }),
  );
  server.setRequestHandler(
    'resources/unsubscribe',
    counted(async (request) => {
      subscriptions.delete(request.params.uri);
      return {};
    }),
  );
}
