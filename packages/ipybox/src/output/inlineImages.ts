/**
 * The copy of an image that goes inline in a tool result: small enough for a model's context.
 * A 20×20-inch matplotlib figure at dpi 200 is 3212×3167 px and ~430 KiB of PNG; models see no
 * more than about 1568 px on the long side anyway (Claude's recommended input size), so larger
 * images are scaled down to that, and re-encoded as JPEG (then smaller) when the PNG stays over
 * the byte cap. The full image stays on disk and readable as a resource.
 *
 * Scaling uses sharp (libvips, prebuilt for the platform by npm), in this process, so it works
 * whatever the kernel's Python has installed. It is loaded on the first image only, and a
 * failure of any kind (no binary for this platform, an image libvips cannot read) falls back to
 * the original when it is within the cap, else to no inline copy: an image never fails a cell.
 *
 * @module
 */
import type { SavedImage } from '../kernel/images.ts';

/** Longest side of an inline image, in pixels. */
export const INLINE_MAX_SIDE = 1568;
/** Largest inline image, in bytes (before base64). */
export const INLINE_MAX_BYTES = 768 * 1024;

export interface InlineImage {
  data: Buffer;
  mimeType: string;
  /** Set when the copy is smaller than the original. */
  scaled?: { from: { width: number; height: number }; to: { width: number; height: number } };
}

type Sharp = typeof import('sharp').default;
let sharpModule: Promise<Sharp | undefined> | undefined;

function loadSharp(): Promise<Sharp | undefined> {
  sharpModule ??= import('sharp').then(
    (module) => module.default,
    () => undefined,
  );
  return sharpModule;
}

/** The inline copy of `image`, or undefined when none fits the cap. Never rejects. */
export async function inlineImage(
  image: Pick<SavedImage, 'data' | 'mimeType'>,
  { maxSide = INLINE_MAX_SIDE, maxBytes = INLINE_MAX_BYTES } = {},
): Promise<InlineImage | undefined> {
  const original = { data: image.data, mimeType: image.mimeType };
  const asIs = image.data.length <= maxBytes ? original : undefined;
  // SVG is text a client renders at any size; only its bytes count.
  if (image.mimeType === 'image/svg+xml') return asIs;
  try {
    const sharp = await loadSharp();
    if (!sharp) return asIs;
    const { width, height } = await sharp(image.data).metadata();
    if (!width || !height) return asIs;
    if (asIs && Math.max(width, height) <= maxSide) return asIs;
    let side = Math.min(maxSide, Math.max(width, height));
    // Shrinking further is the last resort for images that stay too heavy even as JPEG.
    for (let attempt = 0; attempt < 4; attempt += 1, side = Math.floor(side * 0.7)) {
      const resized = sharp(image.data).resize({
        width: side,
        height: side,
        fit: 'inside',
        withoutEnlargement: true,
      });
      const asJpeg = () =>
        resized
          .clone()
          .flatten({ background: '#ffffff' })
          .jpeg({ quality: 85 })
          .toBuffer({ resolveWithObject: true });
      // A photo stays a JPEG; a PNG (a plot: flat colours, sharp lines) stays a PNG if it fits.
      const photo = image.mimeType === 'image/jpeg';
      let encoded = photo
        ? await asJpeg()
        : await resized.clone().png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true });
      let mimeType = photo ? 'image/jpeg' : 'image/png';
      if (!photo && encoded.data.length > maxBytes) {
        encoded = await asJpeg();
        mimeType = 'image/jpeg';
      }
      if (encoded.data.length <= maxBytes) {
        return {
          data: encoded.data,
          mimeType,
          scaled: {
            from: { width, height },
            to: { width: encoded.info.width, height: encoded.info.height },
          },
        };
      }
    }
    return undefined;
  } catch {
    return asIs;
  }
}
