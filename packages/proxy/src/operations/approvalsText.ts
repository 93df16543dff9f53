/**
 * What the approval operations print — `mcp-proxy approvals list|approve|deny` and the
 * `proxy__approvals`, `proxy__approve`, `proxy__deny` tools alike —, made from the API's JSON
 * answers. Like the other texts of the CLI it loads no framework code (types only).
 *
 * @module
 */
import type { PendingApproval } from '@mcpbox/framework';

/** `GET /proxy/approvals`: the waiting calls and the server's clock (for the time left). */
export interface ApprovalsBody {
  ok: true;
  pending: PendingApproval[];
  now: number;
}

/** `POST /proxy/approvals/approve|deny/<id>`: what the answer did. */
export interface AnsweredBody {
  ok: true;
  id: string;
  approved: boolean;
  /** `server.tool` of the call. */
  call: string;
  principal: string;
  /** The single-use grant an approval made (none for a denial). */
  grant?: { id: string; expiresAt: number };
  now: number;
}

/** `42 s`, `3 min`, `expired`: how long until `at`. */
export function timeLeft(at: number, now: number): string {
  const seconds = Math.floor((at - now) / 1000);
  if (seconds <= 0) return 'expired';
  return seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min`;
}

export function approvalsText(body: ApprovalsBody): string {
  if (body.pending.length === 0) return '(no call is waiting for approval)';
  return body.pending
    .map((p) => {
      const { principal, server, tool } = p.subject;
      return [
        `${p.id}  ${principal} → ${server}.${tool}  (rule ${p.rule}, via ${p.via}, ${timeLeft(p.expiresAt, body.now)} left)`,
        ...JSON.stringify(p.args, null, 2)
          .split('\n')
          .map((line) => `    ${line}`),
      ].join('\n');
    })
    .join('\n');
}

export function answeredText(body: AnsweredBody): string {
  if (!body.approved) return `Denied ${body.call} for ${body.principal}: the call is refused.`;
  const grant = body.grant
    ? ` (grant ${body.grant.id}, single use, ${timeLeft(body.grant.expiresAt, body.now)} left)`
    : '';
  return `Approved ${body.call} for ${body.principal}, with exactly those arguments, once${grant}.`;
}
