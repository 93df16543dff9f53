/**
 * What `mcp-proxy pins list|diff|approve|reject` print, and the `proxy__pins*` tools answer:
 * readable text from the management API's JSON (the CLI sees nothing else). Kept free of the
 * framework, as `cliText.ts` is, so the CLI declares its commands without the server; the body
 * shapes are those of the framework's `pins/types.ts` (`PinStatus`, `PinDiff`).
 *
 * @module
 */

interface PinnedBody {
  digest: string;
  at: number;
  by: string;
}

export interface PinStatusBody {
  server: string;
  kind: string;
  name: string;
  mode: string;
  state: string;
  pinned?: PinnedBody;
  pending?: PinnedBody & { change: string };
}

export interface PinsBody {
  pins: PinStatusBody[];
}

export interface PinDiffBody {
  server: string;
  kind: string;
  name: string;
  change: string;
  text: string;
}

export interface PinDiffsBody {
  diffs: PinDiffBody[];
}

/** `2026-12-06 19:50` (UTC): when a definition was pinned. */
const when = (at: number) => new Date(at).toISOString().slice(0, 16).replace('T', ' ');

/** `3f2a9c01… by first-sight at 2026-12-06 19:50`. */
const pinnedText = (pin: PinnedBody) =>
  `${pin.digest.slice(0, 12)}… by ${pin.by} at ${when(pin.at)}`;

/** What an operator does about a waiting definition, in the CLI's words. */
const nextStep = (pin: PinStatusBody) =>
  `see: mcp-proxy pins diff ${pin.server} ${pin.name}; then pins approve|reject ${pin.server} ${pin.name}`;

/** Each server's pins, grouped under `server (mode)`; waiting ones say what to run next. */
export function pinsText(body: PinsBody): string {
  if (body.pins.length === 0) return '(no pinned definitions)';
  const lines: string[] = [];
  let server: string | undefined;
  const width = Math.max(...body.pins.map((p) => p.name.length));
  for (const pin of body.pins) {
    if (pin.server !== server) {
      server = pin.server;
      lines.push(`${pin.server} (pin: ${pin.mode})`);
    }
    const head = `  ${pin.kind.padEnd(6)} ${pin.name.padEnd(width)}  ${pin.state.padEnd(11)}`;
    if (pin.pending === undefined) {
      lines.push(`${head}  ${pin.pinned ? pinnedText(pin.pinned) : ''}`.trimEnd());
    } else {
      lines.push(`${head}  ${pin.pending.change} — ${nextStep(pin)}`);
    }
  }
  return lines.join('\n');
}

/** Each waiting definition's unified diff under a `== server tool name (changed)` header. */
export function pinDiffsText(body: PinDiffsBody): string {
  if (body.diffs.length === 0) return '(no definition waits for approval)';
  return body.diffs
    .map((d) => `== ${d.server} ${d.kind} ${d.name} (${d.change})\n${d.text.trimEnd()}`)
    .join('\n\n');
}

/** `Approved 2 definitions of 'github': tool create_issue, tool search`. */
export function pinDecisionText(verb: string, body: PinsBody & { server: string }): string {
  const n = body.pins.length;
  const what = body.pins.map((p) => `${p.kind} ${p.name}`).join(', ');
  return `${verb} ${n} definition${n === 1 ? '' : 's'} of '${body.server}': ${what}`;
}
