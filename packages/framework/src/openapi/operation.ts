/**
 * One operation of a document, read into what a call needs: its parameters with their
 * serialization (style, explode — the document's or the defaults of their location), the request
 * body's media type and schema, and the security requirements that apply. An operation the
 * connector cannot call faithfully (parameters that clash, only XML bodies…) is refused with
 * the reason, which the listing reports; the rest of the document is still served.
 *
 * @module
 */

export type Location = 'path' | 'query' | 'header' | 'cookie';

export interface Parameter {
  name: string;
  in: Location;
  required: boolean;
  style: string;
  explode: boolean;
  /** `allowReserved` (query): reserved characters are sent as they are. */
  allowReserved: boolean;
  schema: unknown;
  /** Given with `content: {application/json: …}`: the value is sent as JSON text. */
  json: boolean;
  description?: string;
  deprecated?: boolean;
}

/** The media types a body can be sent as, in order of preference. */
export const BODY_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
] as const;
export type BodyType = (typeof BODY_TYPES)[number];

export interface RequestBody {
  /** The media type as the document names it (`application/vnd.api+json` …). */
  mediaType: string;
  kind: BodyType;
  required: boolean;
  schema: unknown;
  description?: string;
}

export type Requirement = Record<string, string[]>;

export interface Operation {
  method: string;
  path: string;
  operationId: string | undefined;
  tags: string[];
  summary?: string;
  description?: string;
  deprecated: boolean;
  parameters: Parameter[];
  body: RequestBody | undefined;
  responses: Record<string, unknown>;
  /** Alternatives: one requirement (all its schemes) must be met; `{}` means none needed. */
  security: Requirement[];
  /** Parts not served, said once (callbacks …). */
  notes: string[];
}

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Headers the OpenAPI spec says to ignore as parameters: the body and auth set them. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

const DEFAULT_STYLE: Record<Location, string> = {
  path: 'simple',
  query: 'form',
  header: 'simple',
  cookie: 'form',
};

type Raw = Record<string, unknown>;

/**
 * Reads the operation `method path`; a string is the reason it cannot be served.
 *
 * @param pathItem the path's item (its `parameters` apply to every operation in it).
 */
export function readOperation(
  method: string,
  path: string,
  pathItem: Raw,
  raw: Raw,
  documentSecurity: Requirement[] | undefined,
): Operation | string {
  const parameters = mergeParameters(pathItem.parameters, raw.parameters);
  if (typeof parameters === 'string') return parameters;
  const body = readBody(raw.requestBody);
  if (typeof body === 'string') return body;
  const names = new Map<string, Location>();
  for (const parameter of parameters) {
    const other = names.get(parameter.name);
    if (other) {
      return `parameter '${parameter.name}' is both in ${other} and in ${parameter.in}`;
    }
    names.set(parameter.name, parameter.in);
  }
  if (body && names.has('body')) {
    return `a ${names.get('body')} parameter is named 'body', like the request body`;
  }
  const notes: string[] = [];
  if (raw.callbacks && Object.keys(raw.callbacks as Raw).length > 0) {
    notes.push('served, but its callbacks are not');
  }
  return {
    method,
    path,
    operationId: typeof raw.operationId === 'string' ? raw.operationId : undefined,
    tags: Array.isArray(raw.tags) ? raw.tags.map(String) : [],
    summary: typeof raw.summary === 'string' ? raw.summary : undefined,
    description: typeof raw.description === 'string' ? raw.description : undefined,
    deprecated: raw.deprecated === true,
    parameters,
    body: body ?? undefined,
    responses: (raw.responses ?? {}) as Record<string, unknown>,
    security: (raw.security as Requirement[] | undefined) ?? documentSecurity ?? [],
    notes,
  };
}

/** Path-item parameters, replaced by the operation's own of the same name and location. */
function mergeParameters(shared: unknown, own: unknown): Parameter[] | string {
  const byKey = new Map<string, Parameter>();
  for (const list of [shared, own]) {
    for (const raw of (Array.isArray(list) ? list : []) as Raw[]) {
      const parameter = readParameter(raw);
      if (typeof parameter === 'string') return parameter;
      if (parameter) byKey.set(`${parameter.in}:${parameter.name}`, parameter);
    }
  }
  return [...byKey.values()];
}

function readParameter(raw: Raw): Parameter | string | undefined {
  const name = String(raw.name);
  const location = raw.in as Location;
  if (!(location in DEFAULT_STYLE)) return `parameter '${name}' is in ${String(raw.in)}`;
  if (location === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) return undefined;
  let schema = raw.schema;
  let json = false;
  if (schema === undefined && raw.content && typeof raw.content === 'object') {
    const [type, media] = Object.entries(raw.content as Raw)[0] ?? [];
    if (!type || !isJson(type)) return `parameter '${name}' is given as ${type ?? 'nothing'}`;
    schema = (media as Raw | undefined)?.schema;
    json = true;
  }
  const style = typeof raw.style === 'string' ? raw.style : DEFAULT_STYLE[location];
  return {
    name,
    in: location,
    required: location === 'path' || raw.required === true,
    style,
    explode: typeof raw.explode === 'boolean' ? raw.explode : style === 'form',
    allowReserved: raw.allowReserved === true,
    schema: schema ?? {},
    json,
    description: typeof raw.description === 'string' ? raw.description : undefined,
    deprecated: raw.deprecated === true,
  };
}

/** The request body in the first media type the connector sends; a string says why none. */
function readBody(raw: unknown): RequestBody | string | null {
  if (!raw || typeof raw !== 'object') return null;
  const body = raw as Raw;
  const content = (body.content ?? {}) as Record<string, Raw | undefined>;
  const offered = Object.keys(content);
  for (const kind of BODY_TYPES) {
    const mediaType = offered.find((type) => bodyKind(type) === kind);
    if (mediaType === undefined) continue;
    return {
      mediaType,
      kind,
      required: body.required === true,
      schema: content[mediaType]?.schema ?? {},
      description: typeof body.description === 'string' ? body.description : undefined,
    };
  }
  if (body.required !== true) return null;
  return `its request body is only ${offered.join(', ') || 'of no media type'} (served: JSON, form, multipart, text)`;
}

/** The kind of body a media type is sent as, or undefined for one not served. */
export function bodyKind(mediaType: string): BodyType | undefined {
  const type = mediaType.split(';')[0].trim().toLowerCase();
  if (isJson(type)) return 'application/json';
  return BODY_TYPES.find((kind) => kind === type);
}

/** `application/json`, `application/problem+json`, `*\/*` when nothing else is said… */
export function isJson(mediaType: string): boolean {
  const type = mediaType.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}
