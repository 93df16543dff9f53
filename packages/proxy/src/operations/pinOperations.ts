/**
 * The management operations about pinned definitions (issue 32), entries of the operations
 * table (`table.ts`) kept beside it: `pins` (list), `pins_diff`, `pins_approve` and
 * `pins_reject` — the CLI's `mcp-proxy pins list|diff|approve|reject`, `/proxy/pins*` in the
 * REST API, the `proxy__pins*` tools. Approve and reject are privileged: kernel code may not
 * release a definition it might have poisoned.
 *
 * Like the table, this file is loaded by the CLI and imports no framework code.
 *
 * @module
 */
import { z } from 'zod';
import { OperandError } from './cliText.ts';
import {
  type PinDiffsBody,
  type PinsBody,
  pinDecisionText,
  pinDiffsText,
  pinsText,
} from './pinsText.ts';
import type { CliGroup, OperationArgs, OperationSpec } from './table.ts';

const PINS_GROUP: CliGroup = {
  name: 'pins',
  description: 'pinned tool and prompt definitions: list, diff, approve or reject what changed',
};

/** Which waiting definitions an approve or reject is about (the framework's `PinTarget`). */
export const PIN_TARGET = {
  server: z.string().min(1).describe('Upstream server or plugin whose definitions'),
  name: z.string().min(1).optional().describe('Tool or prompt name; none: all that wait'),
  kind: z.enum(['tool', 'prompt']).optional().describe('tool or prompt, when both have the name'),
};

/** `pins_diff`'s: a server, a name in it, or everything that waits. */
export const PIN_TARGET_LOOSE = { ...PIN_TARGET, server: PIN_TARGET.server.optional() };

/** `--kind prompt` and the operands `<server> [name]` as a {@link PIN_TARGET}. */
function pinTargetArgs(
  [server, name]: ReadonlyArray<string | undefined>,
  flags: Record<string, unknown>,
): OperationArgs {
  const kind = flags.kind;
  if (kind !== undefined && kind !== 'tool' && kind !== 'prompt') {
    throw new OperandError(`--kind must be tool or prompt, not '${String(kind)}'`);
  }
  const args = { server, name, kind };
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
}

const KIND_OPTION = [['--kind <kind>', 'tool or prompt, when both have the name']] as const;

/** approve and reject: a server's waiting definitions, or one by name; the operator's doing. */
function pinDecision<N extends 'pins_approve' | 'pins_reject'>(
  name: N,
  verb: string,
  summary: string,
) {
  const word = name.slice('pins_'.length);
  // Not typed as a whole OperationSpec: that would give it an optional console button.
  return {
    name,
    summary,
    args: PIN_TARGET,
    privileged: true,
    recorded: { server: 'plugin', name: 'tool' },
    tool: `proxy__${name}`,
    rest: [{ method: 'POST', path: `/proxy/pins/${word}`, body: { fields: true } }],
    cli: {
      group: PINS_GROUP,
      command: `${word} <server> [name]`,
      description: `${word} a server's changed or new definitions (all that wait, or one by name)`,
      options: KIND_OPTION,
      args: pinTargetArgs,
      text: (body: unknown) => pinDecisionText(verb, body as PinsBody & { server: string }),
    },
  } satisfies OperationSpec & { name: N };
}

/** In the order the `proxy__*` tools are listed, after the table's others. */
export const PIN_OPERATIONS = [
  {
    name: 'pins',
    summary:
      'Pinned tool and prompt definitions per server: pinned, quarantined (changed or new, waiting for an operator) or rejected.',
    args: { server: z.string().min(1).optional().describe('Only this server') },
    tool: 'proxy__pins',
    rest: [
      { method: 'GET', path: '/proxy/pins', param: 'server' },
      { method: 'GET', path: '/proxy/pins' },
    ],
    cli: {
      group: PINS_GROUP,
      command: 'list [server]',
      description: "pinned definitions and what waits for approval (all, or one server's)",
      args: ([server]) => (server ? { server } : {}),
      text: (body) => pinsText(body as PinsBody),
    },
  },
  {
    name: 'pins_diff',
    summary:
      'What changed in definitions that wait for approval: a unified diff of the pinned and the offered definition.',
    args: PIN_TARGET_LOOSE,
    tool: 'proxy__pins_diff',
    rest: [{ method: 'POST', path: '/proxy/pins/diff', body: { fields: true } }],
    cli: {
      group: PINS_GROUP,
      command: 'diff [server] [name]',
      description: 'show what changed in the definitions that wait for approval',
      options: KIND_OPTION,
      args: pinTargetArgs,
      text: (body) => pinDiffsText(body as PinDiffsBody),
    },
  },
  pinDecision(
    'pins_approve',
    'Approved',
    'Approve changed or new definitions of a server (all that wait, or one by name): they are pinned and listed and callable again.',
  ),
  pinDecision(
    'pins_reject',
    'Rejected',
    'Reject changed or new definitions of a server: they stay unlisted and uncallable, and the same definition is not asked about again.',
  ),
] as const satisfies readonly OperationSpec[];
