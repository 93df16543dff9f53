/**
 * How the web console answers: the security headers every page, feed and message carries, and
 * the few kinds of response it sends (a page, a plain message, a redirect, a static asset).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: under it Chromium sends `Origin: null` with our own forms, which origin.ts refuses.
  'referrer-policy': 'same-origin',
};

export function sendAsset(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, {
    'content-type': `${type}; charset=utf-8`,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

export function sendHtml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' });
  res.end(body);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

export function redirect(res: ServerResponse, location: string): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location });
  res.end();
}

export function isTls(req: IncomingMessage): boolean {
  return (req.socket as { encrypted?: boolean }).encrypted === true;
}
