/**
 * Parameter values as the OpenAPI document says to send them (its "style values" table): path
 * `simple`, `label` and `matrix`; query `form`, `spaceDelimited`, `pipeDelimited` and
 * `deepObject`; header `simple`; cookie `form` — each with `explode`, for primitives, arrays and
 * objects. Path and query pieces come back percent-encoded, header and cookie values as text.
 *
 * @module
 */
import type { Parameter } from './operation.ts';

type Encode = (text: string) => string;

/** Reserved characters kept as they are (`allowReserved`), everything else encoded. */
const encodeReserved: Encode = (text) =>
  encodeURIComponent(text).replace(
    /%(3A|2F|3F|23|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi,
    (m) => decodeURIComponent(m),
  );

/** A value as text: objects inside arrays or objects (which no style describes) as JSON. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function entriesOf(value: object): Array<[string, string]> {
  return Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, text(v)]);
}

/** The value the document's style applies to: JSON text for a `content` parameter. */
function styled(parameter: Parameter, value: unknown): unknown {
  return parameter.json ? JSON.stringify(value) : value;
}

/** The path segment replacing `{name}`. */
export function pathValue(parameter: Parameter, raw: unknown): string {
  const value = styled(parameter, raw);
  const e = encodeURIComponent;
  const { name, style, explode } = parameter;
  const prefix = style === 'label' ? '.' : style === 'matrix' ? `;` : '';
  if (Array.isArray(value)) {
    const items = value.map((v) => e(text(v)));
    if (style === 'matrix') {
      return explode ? items.map((v) => `;${name}=${v}`).join('') : `;${name}=${items.join(',')}`;
    }
    return prefix + items.join(style === 'label' && explode ? '.' : ',');
  }
  if (value !== null && typeof value === 'object') {
    const pairs = entriesOf(value).map(([k, v]) => [e(k), e(v)]);
    if (explode) {
      const joiner = style === 'label' ? '.' : style === 'matrix' ? ';' : ',';
      return prefix + pairs.map(([k, v]) => `${k}=${v}`).join(joiner);
    }
    const flat = pairs.flat().join(',');
    return style === 'matrix' ? `;${name}=${flat}` : prefix + flat;
  }
  return style === 'matrix' ? `;${name}=${e(text(value))}` : prefix + e(text(value));
}

/** The query pieces (`k=v`, encoded) of one parameter. */
export function queryPieces(parameter: Parameter, raw: unknown): string[] {
  const value = styled(parameter, raw);
  const e = parameter.allowReserved ? encodeReserved : encodeURIComponent;
  const { style, explode } = parameter;
  const name = encodeURIComponent(parameter.name);
  if (Array.isArray(value)) {
    const items = value.map((v) => e(text(v)));
    if (style === 'spaceDelimited') return [`${name}=${items.join('%20')}`];
    if (style === 'pipeDelimited') return [`${name}=${items.join('|')}`];
    return explode ? items.map((v) => `${name}=${v}`) : [`${name}=${items.join(',')}`];
  }
  if (value !== null && typeof value === 'object') {
    const pairs = entriesOf(value);
    if (style === 'deepObject') {
      return pairs.map(([k, v]) => `${name}%5B${encodeURIComponent(k)}%5D=${e(v)}`);
    }
    if (explode) return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${e(v)}`);
    return [`${name}=${pairs.map(([k, v]) => `${e(k)},${e(v)}`).join(',')}`];
  }
  return [`${name}=${e(text(value))}`];
}

/** A header's value (`simple`). */
export function headerValue(parameter: Parameter, raw: unknown): string {
  const value = styled(parameter, raw);
  if (Array.isArray(value)) return value.map(text).join(',');
  if (value !== null && typeof value === 'object') {
    const pairs = entriesOf(value);
    return parameter.explode
      ? pairs.map(([k, v]) => `${k}=${v}`).join(',')
      : pairs.flat().join(',');
  }
  return text(value);
}

/** A cookie's `name=value` pieces (`form`). */
export function cookiePieces(parameter: Parameter, raw: unknown): string[] {
  const value = styled(parameter, raw);
  const e = encodeURIComponent;
  if (Array.isArray(value)) {
    const items = value.map((v) => e(text(v)));
    return parameter.explode
      ? items.map((v) => `${parameter.name}=${v}`)
      : [`${parameter.name}=${items.join(',')}`];
  }
  if (value !== null && typeof value === 'object') {
    const pairs = entriesOf(value);
    return parameter.explode
      ? pairs.map(([k, v]) => `${k}=${e(v)}`)
      : [`${parameter.name}=${pairs.map(([k, v]) => `${k},${e(v)}`).join(',')}`];
  }
  return [`${parameter.name}=${e(text(value))}`];
}
