/**
 * `RunLane`: the tool server's connections, read off the socket before node:http sees them, so
 * that the one request kernel code sends over and over — `POST /run HTTP/1.1` with a
 * `Content-Length` body, from the generated runtime (`python/_runtime.py`) — is parsed by hand and
 * answered in one write. node:http's parser, request and response objects, their events and
 * header handling cost about as much CPU per call as everything else the tool server does
 * (≈ 40–50 µs of ≈ 100 µs).
 *
 * Only requests of exactly that shape take the lane: the method, path and version as written, a
 * `Content-Length` within the body limit, no `Transfer-Encoding`, `Expect` or `Upgrade`, and
 * headers the server admits (the caller's token). Anything else — `GET /status`, a WebSocket
 * upgrade to `/approval`, a chunked or oversized body, a wrong token, a head that is not HTTP —
 * hands the connection to node:http from that request on, with the
 * bytes already read put back, so it is served exactly as it would have been: the same
 * statuses, errors and limits. A lane connection answers with the statuses and JSON bodies of the
 * HTTP handler (`handle`), keeps alive like node:http (`Connection: close` and HTTP/1.0 aside),
 * and is closed after {@link IDLE_MS} idle between requests, as node:http's keep-alive timeout
 * does. Closing the connection mid-call aborts the call's signal.
 *
 * @module
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What a lane request carries to the handler. */
export interface LaneRequest {
  /** Header names in lower case, as node:http gives them (`authorization`, `traceparent` …). */
  headers: Record<string, string>;
  body: Buffer;
  /** Aborted when the connection closes before the answer is written. */
  signal: AbortSignal;
}

/** The answer: an HTTP status and a JSON body; `undefined` when nobody is left to answer. */
export type LaneHandler = (
  request: LaneRequest,
) => Promise<{ status: number; body: unknown } | undefined>;

/** node:http's default keep-alive timeout: an idle kept-alive connection is closed after it. */
export const IDLE_MS = 5000;
/** node:http's default header limit; a head that is not complete by then goes to node:http. */
const MAX_HEAD_BYTES = 16 * 1024;
const REQUEST_LINE = 'POST /run HTTP/1.1';
const HEAD_END = Buffer.from('\r\n\r\n');
const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  401: 'Unauthorized',
  500: 'Internal Server Error',
};

interface Head {
  headers: Record<string, string>;
  /** Where the body starts. */
  bodyStart: number;
  length: number;
  keepAlive: boolean;
}

/** The head of a lane request, `'incomplete'`, or `'other'` for anything node:http should serve. */
function parseHead(buffer: Buffer, maxBodyBytes: number): Head | 'incomplete' | 'other' {
  // The request line first: a connection that does not start with it is not ours, however much
  // of it has arrived.
  const start = buffer.toString('latin1', 0, Math.min(buffer.length, REQUEST_LINE.length + 2));
  if (!`${REQUEST_LINE}\r\n`.startsWith(start)) return 'other';
  const end = buffer.indexOf(HEAD_END);
  if (end === -1) return buffer.length > MAX_HEAD_BYTES ? 'other' : 'incomplete';
  if (end > MAX_HEAD_BYTES) return 'other';
  const lines = buffer.toString('latin1', REQUEST_LINE.length + 2, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    // Obsolete line folding, a header without a name, a repeated header: node:http's rules.
    if (colon <= 0 || line[0] === ' ' || line[0] === '\t') return 'other';
    const name = line.slice(0, colon).trim().toLowerCase();
    if (name in headers) return 'other';
    headers[name] = line.slice(colon + 1).trim();
  }
  const length = headers['content-length'];
  if (length === undefined || !/^\d{1,10}$/.test(length) || Number(length) > maxBodyBytes) {
    return 'other';
  }
  if ('transfer-encoding' in headers || 'expect' in headers || 'upgrade' in headers) {
    return 'other';
  }
  const connection = headers.connection?.toLowerCase();
  return {
    headers,
    bodyStart: end + HEAD_END.length,
    length: Number(length),
    keepAlive: connection !== 'close',
  };
}

/** `Date` as node:http writes it, made at most once a second. */
let dateSecond = 0;
let dateText = '';
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

export interface RunLaneOptions {
  handle: LaneHandler;
  /**
   * Whether a request, by its headers, may take the lane (the caller's token): one that may not
   * goes to node:http, which refuses it before reading its body.
   */
  admits: (headers: Record<string, string>) => boolean;
  maxBodyBytes: number;
  onError: (error: unknown) => void;
}

export class RunLane {
  readonly #handle: LaneHandler;
  readonly #admits: RunLaneOptions['admits'];
  readonly #maxBodyBytes: number;
  readonly #onError: (error: unknown) => void;
  readonly #sockets = new Set<Socket>();

  constructor(options: RunLaneOptions) {
    this.#handle = options.handle;
    this.#admits = options.admits;
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#onError = options.onError;
  }

  /** Serves a new connection: on the lane while its requests fit, else through `http`. */
  accept(socket: Socket, http: Server): void {
    this.#sockets.add(socket);
    // What was read and not yet answered, kept as chunks: a large body is joined once, when
    // whole, not once per chunk.
    let chunks: Buffer[] = [];
    let size = 0;
    /** The head of the request being read, once known. */
    let head: Head | undefined;
    let busy = false;
    let aborter: AbortController | undefined;

    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      next();
    };
    // The socket's inactivity timer, restarted by every read and write: it ends a connection
    // idle between requests, never one whose call is still running (approval, a slow tool).
    const onTimeout = () => {
      if (!busy) socket.destroy();
    };
    const onClose = () => {
      this.#sockets.delete(socket);
      aborter?.abort();
    };
    // A connection reset by the peer: 'close' follows, which is all that matters here.
    const onError = () => undefined;

    /** Hands the connection, and what was read of it, to node:http. */
    const handOver = () => {
      socket.off('data', onData);
      socket.off('timeout', onTimeout);
      socket.off('close', onClose);
      socket.off('error', onError);
      socket.setTimeout(0);
      this.#sockets.delete(socket);
      socket.pause();
      if (size > 0) socket.unshift(joined());
      chunks = [];
      size = 0;
      http.emit('connection', socket);
      // node:http reads what was put back through the stream, which must flow again for that.
      socket.resume();
    };

    const joined = (): Buffer => {
      if (chunks.length > 1) chunks = [Buffer.concat(chunks, size)];
      return chunks[0];
    };

    const next = (): void => {
      if (busy || size === 0) return;
      if (head === undefined) {
        const parsed = parseHead(joined(), this.#maxBodyBytes);
        if (parsed === 'other' || (parsed !== 'incomplete' && !this.#admits(parsed.headers))) {
          handOver();
          return;
        }
        if (parsed === 'incomplete') return;
        head = parsed;
      }
      const end = head.bodyStart + head.length;
      if (size < end) return;
      const buffer = joined();
      const body = buffer.subarray(head.bodyStart, end);
      chunks = size > end ? [buffer.subarray(end)] : [];
      size -= end;
      const request = head;
      head = undefined;
      busy = true;
      aborter ??= new AbortController();
      void this.#answer(socket, request, body, aborter.signal).then((open) => {
        busy = false;
        if (open) next();
      });
    };

    socket.on('data', onData);
    socket.on('timeout', onTimeout);
    socket.on('close', onClose);
    socket.on('error', onError);
    socket.setNoDelay(true); // as node:http does
    socket.setTimeout(IDLE_MS);
  }

  /** Answers one request; false when the connection is (or is being) closed. */
  async #answer(socket: Socket, head: Head, body: Buffer, signal: AbortSignal): Promise<boolean> {
    let answer: { status: number; body: unknown } | undefined;
    try {
      answer = await this.#handle({ headers: head.headers, body, signal });
    } catch (error) {
      this.#onError(error);
      answer = {
        status: 500,
        body: { error: 'internal error in the tool server', type: 'tool_error' },
      };
    }
    if (answer === undefined || signal.aborted || socket.destroyed) return false;
    const text = JSON.stringify(answer.body);
    socket.write(
      `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? ''}\r\n` +
        'Content-Type: application/json\r\n' +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `Date: ${httpDate()}\r\n` +
        (head.keepAlive
          ? `Connection: keep-alive\r\nKeep-Alive: timeout=${IDLE_MS / 1000}\r\n\r\n`
          : 'Connection: close\r\n\r\n') +
        text,
    );
    if (head.keepAlive) return true;
    socket.end();
    return false;
  }

  /** Ends every connection still on the lane (those handed over belong to node:http). */
  closeAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}
