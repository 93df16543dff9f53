/**
 * The ZeroMQ wire format of Jupyter messages: routing identities, the `<IDS|MSG>` delimiter, an
 * HMAC signature, then header, parent header, metadata and content as JSON, then raw buffers.
 * Incoming signatures are checked in constant time; a message with a bad signature is dropped by
 * the caller, never trusted.
 *
 * @see https://jupyter-client.readthedocs.io/en/stable/messaging.html#the-wire-protocol
 * @module
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JupyterMessage } from './messages.ts';

const DELIMITER = Buffer.from('<IDS|MSG>');

export class WireError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireError';
  }
}

/** Signs and verifies with the connection file's key; an empty key disables signing (protocol rule). */
export class MessageSigner {
  readonly #key: Buffer;

  constructor(key: string, scheme = 'hmac-sha256') {
    if (scheme !== 'hmac-sha256') {
      throw new WireError(
        `unsupported signature scheme "${scheme}" (only hmac-sha256 is supported)`,
      );
    }
    this.#key = Buffer.from(key, 'utf8');
  }

  sign(parts: readonly (Buffer | string)[]): string {
    if (this.#key.length === 0) return '';
    const hmac = createHmac('sha256', this.#key);
    for (const part of parts) hmac.update(part);
    return hmac.digest('hex');
  }

  /** Frames ready for `socket.send` (no routing identities: clients use Dealer sockets). */
  encode(message: JupyterMessage<object>): Buffer[] {
    const parts = [
      JSON.stringify(message.header),
      JSON.stringify(message.parent_header),
      JSON.stringify(message.metadata),
      JSON.stringify(message.content),
    ];
    return [
      DELIMITER,
      Buffer.from(this.sign(parts)),
      ...parts.map((part) => Buffer.from(part)),
      ...message.buffers,
    ];
  }

  /** Parses received frames; throws `WireError` for a malformed message or a bad signature. */
  decode(frames: readonly Buffer[]): JupyterMessage {
    const start = frames.findIndex((frame) => frame.equals(DELIMITER));
    if (start < 0 || frames.length < start + 6) {
      throw new WireError('malformed Jupyter message: no <IDS|MSG> delimiter or missing parts');
    }
    const signature = frames[start + 1];
    const parts = frames.slice(start + 2, start + 6);
    if (this.#key.length > 0) {
      const expected = Buffer.from(this.sign(parts));
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
        throw new WireError('Jupyter message with an invalid signature');
      }
    }
    try {
      return {
        header: JSON.parse(parts[0].toString('utf8')),
        parent_header: JSON.parse(parts[1].toString('utf8')),
        metadata: JSON.parse(parts[2].toString('utf8')),
        content: JSON.parse(parts[3].toString('utf8')),
        buffers: frames.slice(start + 6),
      };
    } catch (error) {
      throw new WireError(`malformed Jupyter message: ${(error as Error).message}`);
    }
  }
}
