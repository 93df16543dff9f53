/**
 * ipybox's admin surface, published to the host (`server.publishAdmin('ipybox', …)`): pending
 * approvals with Approve / Deny, and kernels with Interrupt / Restart / Close. mcp-proxy's web
 * console renders it without importing ipybox.
 *
 * Approvals are answered through the kernels' approval gates, the channel a WebSocket
 * `ApprovalClient` uses (see `approval/approvalBoard.ts`); they reach the board only under
 * `approval: channel` (with `elicit` the cell's own client decides).
 *
 * @module
 */
import { readFile } from 'node:fs/promises';
import { type AdminSection, type AdminSurface, displayCallerKey } from '@mcpbox/framework';
import type { Ipybox } from '../server/ipybox.ts';

const KERNEL_ACTIONS = ['interrupt', 'restart', 'close'] as const;
type KernelAction = (typeof KERNEL_ACTIONS)[number];

/** The kernel's resident memory in bytes, from `/proc` (Linux); null when unknown. */
async function residentBytes(pid: number | undefined): Promise<number | null> {
  if (pid === undefined) return null;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return kb ? Number(kb[1]) * 1024 : null;
  } catch {
    return null; // gone, or not Linux
  }
}

function approvalsSection(ipybox: Ipybox): AdminSection {
  const board = ipybox.kernels.approvals;
  return {
    id: 'approvals',
    title: 'Approvals',
    columns: [
      { key: 'server', label: 'Server' },
      { key: 'tool', label: 'Tool' },
      { key: 'arguments', label: 'Arguments' },
      { key: 'kernel', label: 'Kernel' },
      { key: 'waiting', label: 'Waiting', unit: 'ms' },
    ],
    actions: [
      { id: 'approve', label: 'Approve' },
      { id: 'deny', label: 'Deny', destructive: true },
    ],
    rows: () => {
      const now = Date.now();
      return board.pending().map((p) => ({
        id: p.id,
        values: {
          server: p.serverName,
          // Said in the row: approving it runs a program on the host, outside any sandbox.
          tool: p.privileged ? `${p.toolName} (privileged: runs programs on the host)` : p.toolName,
          arguments: JSON.stringify(p.toolArgs),
          kernel: p.kernelId,
          waiting: now - p.since,
        },
        actions: ['approve', 'deny'],
      }));
    },
    act: async (id, action) => {
      if (action !== 'approve' && action !== 'deny') {
        throw new Error(`unknown approval action '${action}': expected approve or deny`);
      }
      return board.answer(id, action === 'approve');
    },
  };
}

function kernelsSection(ipybox: Ipybox): AdminSection {
  return {
    id: 'kernels',
    title: 'Kernels',
    columns: [
      { key: 'kernel', label: 'Kernel' },
      { key: 'owner', label: 'Owner' },
      { key: 'age', label: 'Age', unit: 'ms' },
      { key: 'idle', label: 'Idle', unit: 'ms' },
      { key: 'state', label: 'State' },
      { key: 'memory', label: 'Memory', unit: 'bytes' },
    ],
    actions: [
      { id: 'interrupt', label: 'Interrupt' },
      { id: 'restart', label: 'Restart', destructive: true },
      { id: 'close', label: 'Close', destructive: true },
    ],
    rows: async () => {
      const now = Date.now();
      return Promise.all(
        ipybox.kernels.list().map(async (k) => ({
          id: k.id,
          values: {
            kernel: k.id,
            owner: k.owner === undefined ? '(handle only)' : displayCallerKey(k.owner),
            age: now - k.openedAt,
            idle: k.busy || k.lastUsed === undefined ? null : now - k.lastUsed,
            state: k.lastUsed === undefined ? 'opening' : k.busy ? 'busy' : 'idle',
            memory: await residentBytes(k.pid),
          },
          actions: [...KERNEL_ACTIONS],
        })),
      );
    },
    act: async (id, action) => {
      if (!(KERNEL_ACTIONS as readonly string[]).includes(action)) {
        throw new Error(`unknown kernel action '${action}': expected ${KERNEL_ACTIONS.join(', ')}`);
      }
      return ipybox.kernels.operate(id, action as KernelAction);
    },
  };
}

/** The surface of one ipybox; `open()` registers the host as an approval client. */
export function ipyboxAdmin(ipybox: Ipybox): AdminSurface {
  return {
    title: `ipybox (${ipybox.settings.workspace}, approval: ${ipybox.settings.approval})`,
    sections: [approvalsSection(ipybox), kernelsSection(ipybox)],
    open: () => ipybox.kernels.approvals.open(),
  };
}
