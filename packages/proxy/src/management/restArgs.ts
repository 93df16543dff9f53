/**
 * An operation's arguments from a REST request, as its route in `operations/table.ts` declares
 * them: a path segment (`/proxy/command/<name>`), `{"plugin": "<name>"}`, a JSON object of
 * named values, or a JSON object of the operation's own arguments. Malformed requests are
 * `HttpError`s that say what was expected.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { OperationArgs, RestRoute } from '../operations/table.ts';
import { readText } from './body.ts';
import { HttpError } from './errors.ts';

async function readBody(req: IncomingMessage): Promise<unknown> {
  const text = await readText(req);
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    // A body sent as something else (a form, say) is answered with what the API expects.
    const type = req.headers['content-type'];
    if (type !== undefined && !/^application\/json\b/i.test(type)) {
      throw new HttpError(
        400,
        `expected a JSON body, e.g. {"plugin": "echo"}; got Content-Type ${type} that is not JSON`,
      );
    }
    throw new HttpError(400, `malformed JSON body: ${(error as Error).message}`);
  }
}

/** `{"plugin": "name"}` → name, or a 400 saying what was wrong. */
async function namedValue(req: IncomingMessage, field: string): Promise<string> {
  const body = await readBody(req);
  const value = (body as Record<string, unknown> | undefined)?.[field];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, `expected a JSON object body: {"${field}": "<name>"}`);
  }
  if (typeof value !== 'string' || value.trim() === '') {
    throw new HttpError(400, `missing "${field}": expected {"${field}": "<name>"}`);
  }
  return value;
}

/** A JSON object of named values, or nothing. */
async function namedValues(
  req: IncomingMessage,
  what: string,
): Promise<Record<string, unknown> | undefined> {
  const body = await readBody(req);
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new HttpError(400, `${what} must be a JSON object`);
  }
  return body as Record<string, unknown> | undefined;
}

/** The arguments of `route`'s operation; `param` is the path segment after the route's path. */
export async function restArgs(
  req: IncomingMessage,
  route: RestRoute,
  param: string | undefined,
): Promise<OperationArgs> {
  const args: OperationArgs = {};
  if (route.param !== undefined) {
    if (!param) {
      throw new HttpError(404, `no ${route.param} given: ${route.method} ${route.path}/<name>`);
    }
    args[route.param] = param;
  }
  if (route.body === undefined) return args;
  if ('name' in route.body) args[route.body.name] = await namedValue(req, route.body.name);
  else if ('fields' in route.body) Object.assign(args, await namedValues(req, 'the body'));
  else args[route.body.object] = await namedValues(req, 'command arguments');
  return args;
}
