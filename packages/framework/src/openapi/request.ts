/**
 * A tool call's arguments as the HTTP request of its operation: the URL from the base URL and
 * the path template with its parameters in, the query string, headers and cookies (serialize.ts)
 * and the body as JSON, form, multipart or text. Credentials are added afterwards (auth.ts).
 *
 * @module
 */
import type { Operation, RequestBody } from './operation.ts';
import { cookiePieces, headerValue, pathValue, queryPieces } from './serialize.ts';

export interface HttpRequest {
  method: string;
  url: URL;
  headers: Headers;
  body?: string | FormData;
}

/** What the connector accepts back: JSON first, anything else as text. */
const ACCEPT = 'application/json, */*;q=0.5';

export function buildRequest(
  operation: Operation,
  args: Record<string, unknown>,
  baseUrl: string,
): HttpRequest {
  let path = operation.path;
  const query: string[] = [];
  const cookies: string[] = [];
  const headers = new Headers({ accept: ACCEPT });
  for (const parameter of operation.parameters) {
    const value = args[parameter.name];
    if (value === undefined) continue;
    switch (parameter.in) {
      case 'path':
        path = path.replaceAll(`{${parameter.name}}`, pathValue(parameter, value));
        break;
      case 'query':
        query.push(...queryPieces(parameter, value));
        break;
      case 'header':
        headers.set(parameter.name, headerValue(parameter, value));
        break;
      case 'cookie':
        cookies.push(...cookiePieces(parameter, value));
        break;
    }
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  const url = new URL(baseUrl.replace(/\/+$/, '') + path);
  if (query.length > 0) url.search = query.join('&');
  const request: HttpRequest = { method: operation.method.toUpperCase(), url, headers };
  if (operation.body && args.body !== undefined) {
    request.body = encodeBody(operation.body, args.body);
    // FormData sets its own content type, with the boundary.
    if (typeof request.body === 'string') headers.set('content-type', operation.body.mediaType);
  }
  return request;
}

function encodeBody(body: RequestBody, value: unknown): string | FormData {
  switch (body.kind) {
    case 'application/json':
      return JSON.stringify(value);
    case 'text/plain':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'application/x-www-form-urlencoded': {
      const form = new URLSearchParams();
      for (const [key, item] of fields(value)) form.append(key, text(item));
      return form.toString();
    }
    case 'multipart/form-data': {
      const form = new FormData();
      const properties = (body.schema as { properties?: Record<string, { format?: string }> })
        ?.properties;
      for (const [key, item] of fields(value)) {
        // A binary part comes as base64 (the input schema says so) and goes as a file.
        if (properties?.[key]?.format === 'binary' && typeof item === 'string') {
          form.append(key, new Blob([Buffer.from(item, 'base64')]), key);
        } else form.append(key, text(item));
      }
      return form;
    }
  }
}

/** An object's fields, an array's items repeated under their key (form `explode`). */
function fields(value: unknown): Array<[string, unknown]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('body: expected an object of form fields');
  }
  return Object.entries(value).flatMap(([key, item]) =>
    Array.isArray(item)
      ? item.map((one): [string, unknown] => [key, one])
      : item === undefined
        ? []
        : [[key, item]],
  );
}

function text(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
