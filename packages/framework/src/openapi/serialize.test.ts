/**
 * Parameter serialization against the OpenAPI specification's own "style examples" table
 * (3.1.0, §4.8.12.4): `color` as the primitive `blue`, the array `[blue, black, brown]` and the
 * object `{R: 100, G: 200, B: 150}`, in every style and explode the table lists.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Location, Parameter } from './operation.ts';
import { cookiePieces, headerValue, pathValue, queryPieces } from './serialize.ts';

const PRIMITIVE = 'blue';
const ARRAY = ['blue', 'black', 'brown'];
const OBJECT = { R: 100, G: 200, B: 150 };

function color(location: Location, style: string, explode: boolean): Parameter {
  return {
    name: 'color',
    in: location,
    required: true,
    style,
    explode,
    allowReserved: false,
    schema: {},
    json: false,
  };
}

test('path: simple, label and matrix, with and without explode', () => {
  const table: Array<[string, boolean, string, string, string]> = [
    ['simple', false, 'blue', 'blue,black,brown', 'R,100,G,200,B,150'],
    ['simple', true, 'blue', 'blue,black,brown', 'R=100,G=200,B=150'],
    ['label', false, '.blue', '.blue,black,brown', '.R,100,G,200,B,150'],
    ['label', true, '.blue', '.blue.black.brown', '.R=100.G=200.B=150'],
    ['matrix', false, ';color=blue', ';color=blue,black,brown', ';color=R,100,G,200,B,150'],
    ['matrix', true, ';color=blue', ';color=blue;color=black;color=brown', ';R=100;G=200;B=150'],
  ];
  for (const [style, explode, primitive, array, object] of table) {
    const parameter = color('path', style, explode);
    assert.equal(pathValue(parameter, PRIMITIVE), primitive, `${style} ${explode}`);
    assert.equal(pathValue(parameter, ARRAY), array, `${style} ${explode}`);
    assert.equal(pathValue(parameter, OBJECT), object, `${style} ${explode}`);
  }
  assert.equal(pathValue(color('path', 'simple', false), 'a/b c'), 'a%2Fb%20c');
});

test('query: form, spaceDelimited, pipeDelimited and deepObject', () => {
  const form = color('query', 'form', true);
  assert.deepEqual(queryPieces(form, PRIMITIVE), ['color=blue']);
  assert.deepEqual(queryPieces(form, ARRAY), ['color=blue', 'color=black', 'color=brown']);
  assert.deepEqual(queryPieces(form, OBJECT), ['R=100', 'G=200', 'B=150']);
  const flat = color('query', 'form', false);
  assert.deepEqual(queryPieces(flat, ARRAY), ['color=blue,black,brown']);
  assert.deepEqual(queryPieces(flat, OBJECT), ['color=R,100,G,200,B,150']);
  assert.deepEqual(queryPieces(color('query', 'spaceDelimited', false), ARRAY), [
    'color=blue%20black%20brown',
  ]);
  assert.deepEqual(queryPieces(color('query', 'pipeDelimited', false), ARRAY), [
    'color=blue|black|brown',
  ]);
  assert.deepEqual(queryPieces(color('query', 'deepObject', true), OBJECT), [
    'color%5BR%5D=100',
    'color%5BG%5D=200',
    'color%5BB%5D=150',
  ]);
  assert.deepEqual(queryPieces(form, 'a&b=c'), ['color=a%26b%3Dc']);
  const reserved = { ...form, allowReserved: true };
  assert.deepEqual(queryPieces(reserved, 'a/b?c'), ['color=a/b?c']);
});

test('header (simple) and cookie (form); a content parameter is sent as JSON', () => {
  assert.equal(headerValue(color('header', 'simple', false), ARRAY), 'blue,black,brown');
  assert.equal(headerValue(color('header', 'simple', true), OBJECT), 'R=100,G=200,B=150');
  assert.equal(headerValue(color('header', 'simple', false), OBJECT), 'R,100,G,200,B,150');
  assert.deepEqual(cookiePieces(color('cookie', 'form', false), ARRAY), ['color=blue,black,brown']);
  assert.deepEqual(cookiePieces(color('cookie', 'form', true), PRIMITIVE), ['color=blue']);
  const json = { ...color('query', 'form', true), json: true };
  assert.deepEqual(queryPieces(json, { a: [1] }), [`color=${encodeURIComponent('{"a":[1]}')}`]);
});
