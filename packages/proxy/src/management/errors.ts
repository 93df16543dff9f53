/**
 * Errors of the management API that know their HTTP response: a status and a JSON body
 * `{"ok": false, "error": …}`. The server renders them; anything else becomes a logged 500 with
 * a generic body.
 *
 * @module
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  toJSON(): { ok: false; error: string } {
    return { ok: false, error: this.message };
  }
}
