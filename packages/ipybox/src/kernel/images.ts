/**
 * Saves images from MIME bundles as files, so results can refer to them by path (and still carry
 * the bytes). Writes are synchronous on purpose: a chunk that mentions an image is emitted only
 * once the file exists, and output order is kept without an async hand-off.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MimeBundle } from './messages.ts';

export type ImageMimeType = 'image/png' | 'image/jpeg' | 'image/svg+xml';

const EXTENSIONS: Record<ImageMimeType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/svg+xml': 'svg',
};

export interface SavedImage {
  /** Absolute path of the written file, `<imagesDir>/<uuid>.<ext>`. */
  path: string;
  mimeType: ImageMimeType;
  data: Buffer;
}

/** True when the bundle holds at least one image this module saves. */
export function hasImage(bundle: MimeBundle): boolean {
  return Object.keys(EXTENSIONS).some((mime) => typeof bundle[mime] === 'string');
}

/** Writes every image in `bundle` (PNG and JPEG arrive base64-encoded, SVG as text). */
export function saveImages(bundle: MimeBundle, imagesDir: string): SavedImage[] {
  const saved: SavedImage[] = [];
  for (const [mimeType, extension] of Object.entries(EXTENSIONS) as [ImageMimeType, string][]) {
    const value = bundle[mimeType];
    if (typeof value !== 'string') continue;
    const data =
      mimeType === 'image/svg+xml' ? Buffer.from(value, 'utf8') : Buffer.from(value, 'base64');
    mkdirSync(imagesDir, { recursive: true });
    const path = join(imagesDir, `${randomUUID()}.${extension}`);
    writeFileSync(path, data);
    saved.push({ path, mimeType, data });
  }
  return saved;
}
