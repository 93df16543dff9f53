/**
 * Checking a presented code against the group's secret: the code's TOTP time step when it is
 * right, `'invalid'` when it is wrong (a failure to count), or the answer to give when it
 * cannot be checked at all (malformed, secret unavailable or broken) — none of which counts.
 *
 * @module
 */
import type { Logger } from '../logging/index.ts';
import { type SecretBackend, SecretUnavailableError } from '../secrets/backends.ts';
import { checkTotp } from './totp.ts';

/** An answer of the gate tools: the text and whether it is an error. */
export interface GateAnswer {
  ok: boolean;
  message: string;
}

export type CodeCheck = { step: number } | 'invalid' | GateAnswer;

export async function checkCode(
  backend: SecretBackend,
  group: { name: string; secretRef: string },
  code: string,
  now: number,
  logger: Logger,
): Promise<CodeCheck> {
  let secret: string;
  try {
    secret = await backend.secret(group.secretRef);
  } catch (error) {
    const reason =
      error instanceof SecretUnavailableError ? error.message : 'The secret backend failed.';
    logger.warn(`gate: cannot read the secret of group '${group.name}': ${reason}`);
    return { ok: false, message: `Cannot unlock group '${group.name}': ${reason}` };
  }
  const check = checkTotp(secret, code, now);
  switch (check.kind) {
    case 'malformed':
      return {
        ok: false,
        message: 'Malformed code: expected the 6 digits your authenticator shows.',
      };
    case 'bad-secret':
      logger.error(`gate: the secret of group '${group.name}' is not valid base32`);
      return {
        ok: false,
        message: `Cannot unlock group '${group.name}': its secret is not valid base32.`,
      };
    case 'invalid':
      return 'invalid';
    case 'valid':
      return { step: check.step };
  }
}
