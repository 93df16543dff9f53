// A plugin's zod 3 schemas: the host builds their object with zod 3's API (loaded only then)
// and validates and describes it like a zod 4 one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { z as z4 } from 'zod';
import * as z3 from 'zod/v3';
import type { AnySchema } from '../contract/schema.ts';
import { objectFromShape, validateStandard, zodToJson } from './zodCompat.ts';

test('a raw shape of zod 3 fields becomes a zod 3 object that validates and has a JSON Schema', async () => {
  const schema = objectFromShape({
    city: z3.string().describe('where'),
    days: z3.number().optional(),
  });
  assert.ok('_def' in schema && !('_zod' in schema), 'built with zod 3');
  assert.deepEqual(await validateStandard(schema, { city: 'Oslo' }), {
    ok: true,
    value: { city: 'Oslo' },
  });
  const wrong = await validateStandard(schema, { days: 'two' });
  assert.equal(wrong.ok, false);
  assert.match(wrong.ok ? '' : wrong.message, /city: Required/);
  const json = zodToJson(schema, 'input');
  assert.deepEqual(json?.required, ['city']);
  assert.deepEqual(Object.keys(json?.properties as object), ['city', 'days']);
});

test('a schema that validates asynchronously is awaited, a thenable of another realm too', async () => {
  const even = z4.object({ n: z4.number().refine(async (n) => n % 2 === 0, 'must be even') });
  assert.deepEqual(await validateStandard(even, { n: 2 }), { ok: true, value: { n: 2 } });
  assert.deepEqual(await validateStandard(even, { n: 3 }), {
    ok: false,
    message: 'n: must be even',
  });

  // A Standard Schema whose promise is another realm's (a vm context's): not `instanceof Promise`.
  const foreign: AnySchema = {
    '~standard': {
      validate: (value) =>
        runInNewContext('Promise.resolve(result)', {
          result: value === 'ok' ? { value } : { issues: [{ message: 'not ok' }] },
        }),
    },
  };
  assert.deepEqual(await validateStandard(foreign, 'ok'), { ok: true, value: 'ok' });
  assert.deepEqual(await validateStandard(foreign, 'no'), { ok: false, message: 'not ok' });
});
