/**
 * Management operations in the audit trail. Every front door — REST, the CLI through it, the
 * `proxy__*` tools, the console, cluster sync, `SIGHUP` — runs an operation through its handler
 * in `HANDLERS`, and each of those handlers is wrapped here, so no route runs an operation
 * unrecorded. A record names the operation, who asked (`principal` at the tool door, else `by`),
 * the outcome (`allowed`, or `error` when the operation failed: the REST answer's status says
 * which) and only the arguments the operation's table entry names as `recorded`: never a secret.
 *
 * A refusal happens before an operation runs and is recorded where it is decided: the policy
 * or privilege refusal of a `proxy__*` tool is that call's `denied` record.
 *
 * @module
 */
import type { AuditDecision, AuditEntry } from '@mcpbox/framework';
import type { Caller, Handler } from './handlers.ts';
import { type OperationArgs, type OperationName, operationNamed } from './table.ts';

/** The record of `name` run by `caller` with `args`. */
function operationEntry(
  name: OperationName,
  caller: Caller,
  args: OperationArgs,
  decision: AuditDecision,
): AuditEntry {
  const entry: AuditEntry = {
    kind: 'operation',
    operation: name,
    principal: caller.principal,
    by: caller.fromCluster
      ? 'cluster'
      : caller.operator !== caller.principal
        ? caller.operator
        : undefined,
    decision,
  };
  for (const [arg, field] of Object.entries(operationNamed(name).recorded ?? {})) {
    const value = args[arg];
    if (typeof value === 'string') entry[field] = value;
  }
  return entry;
}

/** `handler`, recording each of its runs in the caller's audit trail. */
function audited<A, R>(name: OperationName, handler: Handler<A, R>): Handler<A, R> {
  return {
    ...handler,
    async run(caller, args) {
      const audit = caller.manager.audit;
      // No audit log: nothing is built.
      if (!audit?.active) return handler.run(caller, args);
      const record = (decision: AuditDecision) =>
        audit.record(operationEntry(name, caller, args as OperationArgs, decision));
      let result: R;
      try {
        result = await handler.run(caller, args);
      } catch (error) {
        record('error');
        throw error;
      }
      record(handler.rest(result).status < 400 ? 'allowed' : 'error');
      return result;
    },
  };
}

/** Each handler of `handlers`, audited. */
export function auditedHandlers<H extends Record<OperationName, Handler<never, unknown>>>(
  handlers: H,
): H {
  const wrapped: Partial<Record<OperationName, unknown>> = {};
  for (const name of Object.keys(handlers) as OperationName[]) {
    wrapped[name] = audited(name, handlers[name]);
  }
  return wrapped as H;
}
