/**
 * Code mode's settings: ipybox's (workspace, python, sandbox, max_kernels, ... under
 * `plugins.code_mode:`), plus the approval policy of calls from code per plugin or tool:
 *
 * ```yaml
 * plugins:
 *   code_mode:
 *     approval: auto                       # default for every call from code: auto | elicit | deny
 *     approval_rules:
 *       memory: elicit                     # every tool of the plugin (or mirrored server) memory
 *       memory.delete_entities: deny       # one tool: the most specific rule wins
 *     languages: [typescript, python]      # what execute_code offers (default: python, typescript, javascript)
 *     default_language: typescript         # when a call names none (default: the first listed)
 * ```
 *
 * Without `python` in `languages` no kernel is ever started and Python need not be installed.
 *
 * @module
 */
import { errorMessage } from '@mcpbox/framework';
import type { ApprovalPolicy } from '../approval/approvalGate.ts';
import type { ToolCall } from '../approval/approvalRequest.ts';
import { type IpyboxSettings, parseSettings } from '../settings.ts';

export type RuleMode = 'auto' | 'elicit' | 'deny';

export type CodeLanguage = 'typescript' | 'javascript' | 'python';
/** Also the default `languages`: Python first, the default of a call that names none. */
export const CODE_LANGUAGES: readonly CodeLanguage[] = ['python', 'typescript', 'javascript'];
const RULE_MODES: readonly RuleMode[] = ['auto', 'elicit', 'deny'];

export interface CodeModeSettings {
  ipybox: IpyboxSettings;
  /** `plugin` or `plugin.tool` → mode. */
  rules: ReadonlyMap<string, RuleMode>;
  /** What `execute_code` offers, the default first. */
  languages: readonly CodeLanguage[];
}

/** Validates `config`; errors name the key under `plugins.<name>`. */
export function parseCodeModeSettings(
  config: Record<string, unknown>,
  name = 'code_mode',
): CodeModeSettings {
  const { approval_rules: rawRules, languages, default_language, ...rest } = config;
  let ipybox: IpyboxSettings;
  try {
    ipybox = parseSettings(rest);
  } catch (error) {
    // The same keys as ipybox's: say where they were written.
    throw new Error(
      errorMessage(error)
        .replaceAll('plugins.ipybox', `plugins.${name}`)
        .replace('invalid ipybox settings', `invalid ${name} settings`),
    );
  }
  return {
    ipybox,
    rules: parseRules(rawRules, name),
    languages: parseLanguages(languages, default_language, name),
  };
}

function parseLanguages(raw: unknown, preferred: unknown, name: string): CodeLanguage[] {
  const expected = `expected ${CODE_LANGUAGES.join(' | ')}`;
  const list = raw ?? CODE_LANGUAGES;
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error(
      `invalid ${name} settings: plugins.${name}.languages: expected a non-empty list (${expected})`,
    );
  }
  for (const language of [...list, ...(preferred === undefined ? [] : [preferred])]) {
    if (!CODE_LANGUAGES.includes(language as CodeLanguage)) {
      throw new Error(
        `invalid ${name} settings: plugins.${name}.languages/default_language: ${expected}, got ${JSON.stringify(language)}`,
      );
    }
  }
  const languages = [...new Set(list as CodeLanguage[])];
  if (preferred === undefined) return languages;
  if (!languages.includes(preferred as CodeLanguage)) {
    throw new Error(
      `invalid ${name} settings: plugins.${name}.default_language: "${String(preferred)}" is not in languages (${languages.join(', ')})`,
    );
  }
  return [preferred as CodeLanguage, ...languages.filter((l) => l !== preferred)];
}

function parseRules(raw: unknown, name: string): Map<string, RuleMode> {
  const rules = new Map<string, RuleMode>();
  if (raw === undefined || raw === null) return rules;
  const where = `plugins.${name}.approval_rules`;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(
      `invalid ${name} settings: ${where}: expected a mapping of "plugin" or "plugin.tool" to ${RULE_MODES.join(' | ')}`,
    );
  }
  for (const [key, mode] of Object.entries(raw)) {
    if (!RULE_MODES.includes(mode as RuleMode)) {
      throw new Error(
        `invalid ${name} settings: ${where}.${key}: expected ${RULE_MODES.join(' | ')}, got ${JSON.stringify(mode)}`,
      );
    }
    if (key.trim() === '' || key.split('.').length > 2) {
      throw new Error(
        `invalid ${name} settings: ${where}: "${key}" is not "plugin" or "plugin.tool"`,
      );
    }
    rules.set(key, mode as RuleMode);
  }
  return rules;
}

/**
 * The gate policy of one call from code: the rule for `plugin.tool`, else for `plugin`, else the
 * default (`approval`). A tool named with its plugin's prefix (`memory_read_graph`) matches a
 * rule written with or without it. `elicit` is the gate's `ask` (decided by elicitation).
 */
export function approvalPolicyOf(settings: CodeModeSettings): (call: ToolCall) => ApprovalPolicy {
  const { rules, ipybox } = settings;
  const fallback: ApprovalPolicy =
    ipybox.approval === 'auto' || ipybox.approval === 'deny' ? ipybox.approval : 'ask';
  const asPolicy = (mode: RuleMode): ApprovalPolicy => (mode === 'elicit' ? 'ask' : mode);
  return ({ server_name: plugin, tool_name: tool }) => {
    const bare = tool.startsWith(`${plugin}_`)
      ? tool.slice(plugin.length + 1).replace(/^_/, '')
      : tool;
    const mode =
      rules.get(`${plugin}.${tool}`) ?? rules.get(`${plugin}.${bare}`) ?? rules.get(plugin);
    return mode === undefined ? fallback : asPolicy(mode);
  };
}
