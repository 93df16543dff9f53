import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { INLINE_MAX_BYTES, INLINE_MAX_SIDE, inlineImage } from './inlineImages.ts';

const solid = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();

/** A PNG that does not compress: random pixels. */
const noise = (width: number, height: number) =>
  sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();

describe('inline images', () => {
  test('a small image goes inline unchanged', async () => {
    const data = await solid(640, 480);
    const copy = await inlineImage({ data, mimeType: 'image/png' });
    assert.deepEqual(copy, { data, mimeType: 'image/png' });
  });

  test('a large figure is scaled to the long-side bound, aspect kept', async () => {
    const data = await solid(3212, 3167);
    const copy = await inlineImage({ data, mimeType: 'image/png' });
    assert.ok(copy?.scaled);
    assert.deepEqual(copy.scaled, {
      from: { width: 3212, height: 3167 },
      to: { width: INLINE_MAX_SIDE, height: Math.round((3167 * INLINE_MAX_SIDE) / 3212) },
    });
    const meta = await sharp(copy.data).metadata();
    assert.equal(meta.width, INLINE_MAX_SIDE);
    assert.equal(copy.mimeType, 'image/png');
  });

  test('an image heavy even when scaled becomes JPEG (or smaller) under the byte cap', async () => {
    const data = await noise(1600, 1200);
    assert.ok(data.length > INLINE_MAX_BYTES);
    const copy = await inlineImage({ data, mimeType: 'image/png' });
    assert.ok(copy);
    assert.ok(copy.data.length <= INLINE_MAX_BYTES);
    assert.equal(copy.mimeType, 'image/jpeg');
  });

  test('a large JPEG stays a JPEG', async () => {
    const data = await sharp({
      create: { width: 3000, height: 2000, channels: 3, background: '#c80' },
    })
      .jpeg()
      .toBuffer();
    const copy = await inlineImage({ data, mimeType: 'image/jpeg' });
    assert.equal(copy?.mimeType, 'image/jpeg');
    assert.deepEqual(copy?.scaled?.to, {
      width: INLINE_MAX_SIDE,
      height: Math.round((2000 * INLINE_MAX_SIDE) / 3000),
    });
  });

  test('bytes that are no image: the original when small, nothing when large; never a throw', async () => {
    const junk = Buffer.from('not a png');
    assert.deepEqual(await inlineImage({ data: junk, mimeType: 'image/png' }), {
      data: junk,
      mimeType: 'image/png',
    });
    assert.equal(
      await inlineImage({ data: randomBytes(INLINE_MAX_BYTES + 1), mimeType: 'image/png' }),
      undefined,
    );
  });

  test('SVG is inlined as it is while under the cap', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="5000" height="5000"/>');
    assert.deepEqual(await inlineImage({ data: svg, mimeType: 'image/svg+xml' }), {
      data: svg,
      mimeType: 'image/svg+xml',
    });
  });
});
