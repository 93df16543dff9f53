/**
 * JSON Schema → TypeScript type expressions, for the declarations code mode gives TypeScript
 * code (`declarations.ts`). Total: any value is accepted as a schema and what cannot be typed
 * (a remote `$ref`, a `not`, a schema nested beyond `MAX_DEPTH`, a malformed keyword) becomes
 * `unknown`, never an exception.
 *
 * Objects keep their real property names (a name that is not an identifier is quoted), a
 * property not in `required` is optional, and `additionalProperties`/`patternProperties` add an
 * index signature. An object with `properties` and no `additionalProperties` gets none: most
 * servers mean "these keys" and an unknown key is then flagged as the typo it usually is.
 * Local `$ref`s (`#`, `#/$defs/X`, `#/definitions/X`, any `#/...` pointer) become named type
 * aliases declared once per root schema, so recursive schemas stay finite.
 *
 * @module
 */

type SchemaObject = { [key: string]: unknown };

/** Beyond this nesting depth a schema is typed `unknown` rather than followed further. */
const MAX_DEPTH = 24;

/** JSON Schema's scalar types and their TypeScript types. */
const PRIMITIVES = new Map([
  ['string', 'string'],
  ['number', 'number'],
  ['integer', 'number'],
  ['boolean', 'boolean'],
  ['null', 'null'],
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Words a type alias must not be named (TypeScript's own type names and keywords). */
const RESERVED_TYPES = new Set([
  'any',
  'unknown',
  'never',
  'string',
  'number',
  'boolean',
  'object',
  'symbol',
  'bigint',
  'null',
  'undefined',
  'void',
  'Array',
  'Record',
  'Promise',
  'Object',
  'String',
  'Number',
  'Boolean',
]);

/** `name` as an object key: bare when it is an identifier, else a quoted string. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** `.name` when `name` is an identifier, else `["name"]`: how code reaches the member. */
export function memberAccess(name: string): string {
  return IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

/** A PascalCase type name made from `hint` (letters and digits only; never empty). */
export function typeName(hint: string): string {
  const words = hint.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return /^[A-Za-z]/.test(name) ? name : `T${name}`;
}

/** A JSDoc block for `text` at `indent` ('' for none); `*\/` inside the text is defused. */
export function jsDoc(text: string, indent = ''): string {
  const lines = text.trim().replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */`;
  return [`${indent}/**`, ...lines.map((l) => `${indent} * ${l}`.trimEnd()), `${indent} */`].join(
    '\n',
  );
}

/**
 * Collects the type aliases one output needs (a `.d.ts`, or one search hit) while schemas are
 * converted: names are unique within it and each root schema's `$ref` targets are declared once.
 */
export class TsTypeContext {
  readonly #declarations: string[] = [];
  readonly #used: Set<string>;
  #root: unknown = {};
  /** `$ref` → alias name, for the current root schema. */
  readonly #refs = new Map<string, string>();
  #prefix = '';

  constructor(reserved: Iterable<string> = []) {
    this.#used = new Set([...RESERVED_TYPES, ...reserved]);
  }

  /** `type X = ...;` aliases, in the order first referenced. */
  get declarations(): readonly string[] {
    return this.#declarations;
  }

  /** A type name unique within this output, derived from `hint`. */
  reserveName(hint: string): string {
    const base = typeName(hint);
    let name = base;
    for (let n = 2; this.#used.has(name); n++) name = `${base}${n}`;
    this.#used.add(name);
    return name;
  }

  /**
   * The type of root schema `schema` (a tool's input or output schema). Its `$ref` targets are
   * declared as aliases named `<prefix><Target>`; nested lines are indented from `indent`.
   */
  rootType(schema: unknown, { prefix = '', indent = '' } = {}): string {
    this.#root = schema;
    this.#refs.clear(); // `#/$defs/X` means a different X in each root schema
    this.#prefix = prefix;
    return this.#type(schema, 0, indent);
  }

  #type(schema: unknown, depth: number, indent: string): string {
    if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return 'unknown';
    if (schema === false) return 'never';
    if (!isObject(schema) || depth > MAX_DEPTH) return 'unknown';
    const parts: string[] = [];
    if (typeof schema.$ref === 'string') parts.push(this.#ref(schema.$ref, depth));
    const own = this.#ownType(schema, depth, indent);
    if (own !== undefined) parts.push(own);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const members = schema[key];
      if (Array.isArray(members) && members.length > 0) {
        parts.push(union(members.map((m) => this.#type(m, depth + 1, indent))));
      }
    }
    if (Array.isArray(schema.allOf)) {
      for (const member of schema.allOf) parts.push(this.#type(member, depth + 1, indent));
    }
    const known = parts.filter((p) => p !== 'unknown');
    let type = known.length === 0 ? 'unknown' : known.map(operand).join(' & ');
    if (known.length === 1) type = known[0]!;
    if (schema.nullable === true && type !== 'unknown') type = union([type, 'null']);
    return type;
  }

  /** The type `const`, `enum` and `type` give (undefined when they say nothing). */
  #ownType(schema: SchemaObject, depth: number, indent: string): string | undefined {
    if ('const' in schema) return literal(schema.const);
    if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const named = types.filter((t): t is string => typeof t === 'string');
    if (named.length === 0) {
      const shaped = 'properties' in schema || 'additionalProperties' in schema;
      if (shaped) return this.#objectType(schema, depth, indent);
      if ('items' in schema || 'prefixItems' in schema)
        return this.#arrayType(schema, depth, indent);
      return undefined;
    }
    return union(named.map((t) => this.#simpleType(t, schema, depth, indent)));
  }

  #simpleType(type: string, schema: SchemaObject, depth: number, indent: string): string {
    if (type === 'array') return this.#arrayType(schema, depth, indent);
    if (type === 'object') return this.#objectType(schema, depth, indent);
    return PRIMITIVES.get(type) ?? 'unknown';
  }

  #arrayType(schema: SchemaObject, depth: number, indent: string): string {
    const tuple = Array.isArray(schema.prefixItems)
      ? schema.prefixItems
      : Array.isArray(schema.items)
        ? schema.items
        : undefined;
    const rest = tuple
      ? Array.isArray(schema.items)
        ? schema.additionalItems
        : schema.items
      : schema.items;
    if (tuple === undefined) {
      return `${operand(this.#type(rest ?? true, depth + 1, indent))}[]`;
    }
    const items = tuple.map((item) => this.#type(item, depth + 1, indent));
    if (rest !== false) items.push(`...${operand(this.#type(rest ?? true, depth + 1, indent))}[]`);
    return `[${items.join(', ')}]`;
  }

  #objectType(schema: SchemaObject, depth: number, indent: string): string {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const inner = `${indent}  `;
    const members: string[] = [];
    for (const [name, property] of Object.entries(properties)) {
      const doc = isObject(property) ? propertyDoc(property) : '';
      if (doc) members.push(jsDoc(doc, inner));
      const optional = required.has(name) ? '' : '?';
      members.push(
        `${inner}${propertyKey(name)}${optional}: ${this.#type(property, depth + 1, inner)};`,
      );
    }
    const index = this.#indexType(schema, depth, inner, members.length > 0);
    if (index !== undefined) members.push(`${inner}[key: string]: ${index};`);
    if (members.length === 0) return 'Record<string, never>';
    return `{\n${members.join('\n')}\n${indent}}`;
  }

  /**
   * The index signature's type, if the object takes keys beyond its properties. With
   * properties beside it, `unknown`: TypeScript requires every property to fit the index type.
   */
  #indexType(
    schema: SchemaObject,
    depth: number,
    indent: string,
    hasProperties: boolean,
  ): string | undefined {
    const patterns = isObject(schema.patternProperties)
      ? Object.values(schema.patternProperties)
      : [];
    const extra: unknown[] = [...patterns];
    const additional = schema.additionalProperties;
    if (additional !== undefined && additional !== false) extra.push(additional);
    // A bare `{type: "object"}` is a map of anything.
    else if (additional === undefined && !hasProperties && patterns.length === 0) extra.push(true);
    if (extra.length === 0) return undefined;
    if (hasProperties) return 'unknown';
    return union(extra.map((s) => this.#type(s, depth + 1, indent)));
  }

  #ref(ref: string, depth: number): string {
    const known = this.#refs.get(ref);
    if (known !== undefined) return known;
    const target = resolvePointer(this.#root, ref);
    if (target === undefined) return 'unknown';
    const last = ref === '#' ? 'Root' : decodeURIComponent(ref.split('/').pop() ?? 'Ref');
    const name = this.reserveName(`${this.#prefix} ${last}`);
    this.#refs.set(ref, name); // before converting: a recursive reference finds the name
    const type = this.#type(target, depth + 1, '');
    const doc =
      isObject(target) && typeof target.description === 'string' ? target.description : '';
    this.#declarations.push(`${doc ? `${jsDoc(doc)}\n` : ''}type ${name} = ${type};`);
    return name;
  }
}

/** The schema `ref` (a local JSON pointer) points to in `root`, if any. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined;
  let node = root;
  for (const raw of ref
    .slice(2)
    .split('/')
    .filter((s, i) => s !== '' || i > 0)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

/** A property's JSDoc text: its description, and its default, format and bounds if any. */
function propertyDoc(schema: SchemaObject): string {
  const lines: string[] = [];
  const text = schema.description ?? schema.title;
  if (typeof text === 'string' && text.trim()) lines.push(text.trim());
  if ('default' in schema) lines.push(`@default ${safeJson(schema.default)}`);
  const facts = [
    'format',
    'minimum',
    'maximum',
    'minLength',
    'maxLength',
    'minItems',
    'maxItems',
    'pattern',
  ]
    .filter((key) => typeof schema[key] === 'string' || typeof schema[key] === 'number')
    .map((key) => `${key}: ${String(schema[key])}`);
  if (facts.length > 0) lines.push(`(${facts.join(', ')})`);
  return lines.join('\n');
}

function literal(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'number';
  if (typeof value === 'string') return JSON.stringify(value);
  return 'unknown';
}

/** `a | b` without repeats; `unknown` absorbs the rest, `never` is dropped. */
function union(types: readonly string[]): string {
  const unique = [...new Set(types)].filter((t) => t !== 'never');
  if (unique.includes('unknown')) return 'unknown';
  if (unique.length === 0) return 'never';
  return unique.length === 1 ? unique[0]! : unique.join(' | ');
}

/** `(type)` when it is a union or an intersection, to stand as an operand or array element. */
function operand(type: string): string {
  return type.includes(' | ') || type.includes(' & ') ? `(${type})` : type;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return String(value);
  }
}

function isObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
