/**
 * Jupyter messages (messaging protocol 5.3): the shape every backend exchanges, and how a client
 * session creates them. Framing and signing are the wire's business (`wire.ts` for ZeroMQ).
 *
 * @see https://jupyter-client.readthedocs.io/en/stable/messaging.html
 * @module
 */
import { randomUUID } from 'node:crypto';

export const PROTOCOL_VERSION = '5.3';

export type ChannelName = 'shell' | 'control' | 'stdin' | 'iopub';

export interface MessageHeader {
  msg_id: string;
  session: string;
  username: string;
  date: string;
  msg_type: string;
  version: string;
}

export interface JupyterMessage<Content = Record<string, unknown>> {
  header: MessageHeader;
  /** Empty object when the message answers nothing. */
  parent_header: Partial<MessageHeader>;
  metadata: Record<string, unknown>;
  content: Content;
  buffers: Buffer[];
}

/** A MIME bundle (`data` of `execute_result` / `display_data`). */
export type MimeBundle = Record<string, unknown>;

/** Creates messages that belong to one client session. */
export class KernelSession {
  readonly id = randomUUID();
  readonly username: string;

  constructor(username = 'mcpbox') {
    this.username = username;
  }

  message<Content extends object>(
    msgType: string,
    content: Content,
    metadata: Record<string, unknown> = {},
  ): JupyterMessage<Content> {
    return {
      header: {
        msg_id: randomUUID(),
        session: this.id,
        username: this.username,
        date: new Date().toISOString(),
        msg_type: msgType,
        version: PROTOCOL_VERSION,
      },
      parent_header: {},
      metadata,
      content,
      buffers: [],
    };
  }
}
