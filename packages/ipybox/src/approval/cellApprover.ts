/**
 * The approver of a running cell (`approval: elicit`, `auto` or `deny`): while the cell runs, the
 * tool calls its code makes that need a decision are put to the user by elicitation on the
 * client that sent the cell, and the cell's clock stops while any of them waits.
 *
 * @module
 */
import type { ApprovalGate } from './approvalGate.ts';
import { pauseWhileDeciding } from './approvalQueue.ts';
import { decideByElicitation, type Elicit } from './elicitApprover.ts';

/**
 * Attaches the cell's approver to `gate` until the returned function detaches it (requests still
 * undecided then fail as `unavailable`). The clock is paused once while any request waits
 * (`pauseWhileDeciding`: the gate is the session's, so its requests are this cell's), however
 * many wait at once.
 *
 * Attached directly rather than through an `ApprovalQueue` and a loop over it: that cost every
 * cell an async iterator and several microtask turns, even when its code called no tool.
 */
export function attachCellApprover(
  gate: ApprovalGate,
  budget: { pause(): void; resume(): void },
  elicit: Elicit,
): () => void {
  const stopPausing = pauseWhileDeciding(gate, budget);
  const detach = gate.attach((request) => {
    void decideByElicitation(request, elicit);
    return undefined; // decideByElicitation settles it
  }, 'elicit');
  return () => {
    detach();
    stopPausing();
  };
}
