/**
 * `mcp-proxy audit verify FILE`: checks an audit log's hash chain (`audit_log`; the framework's
 * `verifyAuditLog`) and says whether it is intact or where it is not: the line of the first
 * record that was changed, removed, added, reordered or cut off. Exit code 0 when intact, 1 not.
 *
 * @module
 */
import { verifyAuditLog } from '@mcpbox/framework';
import { ExitError, fail } from './exit.ts';

/** Prints the verdict on `file`; throws {@link ExitError} (1) when the chain is not intact. */
export async function auditVerify(file: string): Promise<void> {
  let result: Awaited<ReturnType<typeof verifyAuditLog>>;
  try {
    result = await verifyAuditLog(file);
  } catch (error) {
    throw fail(`cannot read the audit log: ${error instanceof Error ? error.message : error}`);
  }
  if (!result.ok) {
    process.stdout.write(`${file}: line ${result.line}: ${result.problem}\n`);
    throw new ExitError(1);
  }
  process.stdout.write(
    result.last === undefined
      ? 'ok: 0 records (an empty log)\n'
      : `ok: ${result.records} record${result.records === 1 ? '' : 's'}, chain intact (last hash ${result.last})\n`,
  );
}
