/**
 * Whether a caller may use a plugin as a whole, for what belongs to a server rather than to one
 * of its tools — a mirrored server's Skills. Decided as tools are, by `AccessControl`: a caller
 * may use a plugin when its view and the policy let it see at least one of the plugin's enabled
 * tools. Without views or policy everyone may; with them, a plugin with no tool the caller may
 * see is not the caller's (fail closed: a server offering only skills is nobody's under a policy).
 *
 * @module
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { ANONYMOUS_PRINCIPAL } from '../auth/principal.ts';
import type { ToolEntry } from '../catalog/types.ts';
import type { Principal } from '../contract/principal.ts';
import type { RequestExtra } from '../contract/tool.ts';
import type { AccessControl } from './access.ts';

export function mayUsePlugin(
  access: AccessControl,
  tools: () => Iterable<ToolEntry>,
  principal: Principal,
  view: string | undefined,
  plugin: string,
): boolean {
  if (!access.decides(view)) return true;
  for (const entry of tools()) {
    if (entry.plugin === plugin && entry.enabled && access.mayList(principal, view, entry)) {
      return true;
    }
  }
  return false;
}

/**
 * {@link mayUsePlugin} for a request: its caller and view as the session gave them. A context
 * without a caller is the anonymous one's (fail closed under a policy).
 */
export function mayUsePluginIn(access: AccessControl, tools: () => Iterable<ToolEntry>) {
  return (plugin: string, ctx: ServerContext): boolean => {
    const { principal, view } = ctx as Partial<RequestExtra>;
    return mayUsePlugin(access, tools, principal ?? ANONYMOUS_PRINCIPAL, view, plugin);
  };
}
