/**
 * Local-time formatting for log names and lines. Local, not UTC, because the daily file and the
 * transcript names are read by a person on this machine.
 *
 * @module
 */

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `YYYY-MM-DD` in local time. */
export function localDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `HH:MM:SS` in local time. */
export function localTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `YYYY-MM-DDTHH:MM:SS.mmm+01:00`: local time that still says which instant it is. */
export function localIso(ms: number): string {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${localDate(ms)}T${localTime(ms)}.${pad(d.getMilliseconds(), 3)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
