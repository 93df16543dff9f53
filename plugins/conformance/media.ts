/**
 * The small binary payloads the conformance fixture returns, built here rather than pasted as
 * opaque base64 so a reader can see what they are.
 *
 * @module
 */

/** A 1×1 red pixel PNG (the conformance suite only checks the MIME type and that data is base64). */
export const RED_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

/** A WAV file (PCM, mono, 8 kHz, 16 bit) holding `samples` samples of silence, base64-encoded. */
export function silentWav(samples = 80): string {
  const sampleRate = 8000;
  const bytesPerSample = 2;
  const dataSize = samples * bytesPerSample;
  const wav = Buffer.alloc(44 + dataSize);
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + dataSize, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * bytesPerSample, 28); // byte rate
  wav.writeUInt16LE(bytesPerSample, 32); // block align
  wav.writeUInt16LE(8 * bytesPerSample, 34); // bits per sample
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(dataSize, 40);
  return wav.toString('base64');
}
