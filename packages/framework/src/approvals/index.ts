/**
 * Approvals bound to the call: policy `approve` rules, the grant book, the operators' desk, and
 * the one step every route's calls pass (`CallApprovals`, asked by the dispatcher).
 *
 * @module
 */
export { type ApprovalCall, type ApprovalOutcome, CallApprovals } from './callApproval.ts';
export {
  type ApprovalRequest,
  OperatorDesk,
  type OperatorDeskOptions,
  type Waited,
} from './desk.ts';
export {
  GRANT_META_KEY,
  GrantBook,
  type GrantBookOptions,
  type GrantRefusal,
  type GrantTaking,
} from './grants.ts';
export type {
  ApprovalAnswer,
  ApprovalDesk,
  ApprovalSubject,
  ApproverKind,
  Grant,
  PendingApproval,
} from './types.ts';
