/**
 * `gate_unlock`, `gate_lock` and `gate_status` as MCP tools, registered on anything with the SDK's
 * `registerTool(name, config, handler)` — a plugin's `PluginServer` or an `McpServer`.
 *
 * Unlocking and locking (the kill switch) are the operator's, not code's: both are privileged
 * (`catalog/privileged.ts`), so kernel code — code mode, ipybox's `mcptools` — cannot pull the
 * kill switch or try codes unless the operator allowed privileged tools, and then only with an
 * approval. An SDK `McpServer` ignores the flag (it runs no kernel code).
 *
 * @module
 */
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { GateCallContext } from './caller.ts';
import type { GateAnswer } from './codes.ts';

/** What the tools ask of the gate (`Gate` has it); the gate registers them, so they name no class. */
export interface GateToolActions {
  readonly enabled: boolean;
  /** Group names, sorted. */
  readonly groupNames: string[];
  unlock(group: string, code: string, ctx?: GateCallContext): Promise<GateAnswer>;
  lock(group?: string): GateAnswer;
  /** Waits for the writes a lock started; a warning when one did not land. */
  settled(): Promise<string | undefined>;
  sync(group?: string): Promise<void>;
  status(ctx?: GateCallContext): string;
}

/** The registration call the gate needs, as both `McpServer` and `PluginServer` offer it. */
export interface ToolRegistrar {
  registerTool(
    name: string,
    config: {
      title?: string;
      description?: string;
      inputSchema?: z.ZodRawShape;
      annotations?: ToolAnnotations;
      privileged?: boolean;
    },
    // biome-ignore lint/suspicious/noExplicitAny: each server types its handler's arguments its own way
    handler: (...args: any[]) => CallToolResult | Promise<CallToolResult>,
  ): unknown;
}

const text = (message: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: message }],
  ...(isError ? { isError: true } : {}),
});

/** Registers the three gate tools; registers nothing when the gate is disabled. */
export function registerGateTools(gate: GateToolActions, server: ToolRegistrar): void {
  if (!gate.enabled) return;
  const groups = gate.groupNames.join(', ') || '(none)';
  server.registerTool(
    'gate_unlock',
    {
      title: 'Unlock a gated tool group',
      description: `Unlock a group of protected tools for this session with the current 6-digit code from the group's authenticator app. Groups: ${groups}. The group locks again after its inactivity timeout.`,
      inputSchema: {
        group: z.string().describe('The group to unlock'),
        code: z.string().describe('The current 6-digit TOTP code'),
      },
      annotations: { readOnlyHint: false, openWorldHint: false },
      privileged: true,
    },
    async ({ group, code }: { group: string; code: string }, ctx: GateCallContext) => {
      const answer = await gate.unlock(group, code, ctx);
      return text(answer.message, !answer.ok);
    },
  );
  server.registerTool(
    'gate_lock',
    {
      title: 'Lock gated tool groups',
      description:
        'Lock one group of protected tools, or every group when group is empty (the kill switch). Locks apply to every session.',
      inputSchema: {
        group: z.string().default('').describe('The group to lock; empty locks all groups'),
      },
      annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
      privileged: true,
    },
    async ({ group }: { group?: string }) => {
      const answer = gate.lock(group ?? '');
      // Shared state: the lock holds here at once; say so when the other replicas wait for it.
      const warning = answer.ok ? await gate.settled() : undefined;
      return warning
        ? text(`${answer.message} Warning: ${warning}; they refuse protected calls meanwhile.`)
        : text(answer.message, !answer.ok);
    },
  );
  server.registerTool(
    'gate_status',
    {
      title: 'Gate status',
      description: 'Show each protected group and whether it is unlocked for this session.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (ctx: GateCallContext) => {
      await gate.sync();
      return text(gate.status(ctx));
    },
  );
}
