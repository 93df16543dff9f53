/**
 * The environment of a user's shell for what a test starts: the test runner's environment
 * without its switches to the TypeScript sources (scripts/run-tests.mjs), the `mcpbox-source`
 * condition in NODE_OPTIONS and MCPBOX_BIN=source, so bins and imports get the built code.
 */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = { ...(process.env as Record<string, string>) };
  delete env.MCPBOX_BIN;
  const options = (env.NODE_OPTIONS ?? '').replace(/--conditions=mcpbox-source/g, '').trim();
  if (options) env.NODE_OPTIONS = options;
  else delete env.NODE_OPTIONS;
  return { ...env, ...extra };
}
