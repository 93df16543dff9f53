/**
 * Fixture trees for proxy tests: `testdir({ 'plugins/counter.ts': '…' })` writes a temporary
 * tree and returns its root; `t.after` removes it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeAtExit } from '@mcpbox/test-utils';

export function testdir(
  files: Record<string, string>,
  t?: { after(fn: () => void): void },
): string {
  const root = removeAtExit(mkdtempSync(join(tmpdir(), 'mcp-proxy-test-')));
  for (const [path, text] of Object.entries(files)) writeFile(root, path, text);
  // A server the test started may still write into the tree (its tool-call log) until a later
  // after-hook stops it, and a failing hook would leave that server running: what cannot be
  // removed now is removed at exit (removeAtExit).
  t?.after(() => {
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch {}
  });
  return root;
}

export function writeFile(root: string, path: string, text: string): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
}

/** A plugin with one tool `version` answering `text`, and a command `<name>_ping`. */
export function versionPlugin(text: string, extra = ''): string {
  return `
export const description = 'answers its version';
export function register(server) {
  server.registerTool('version', { description: 'which version' }, () => ${JSON.stringify(text)});
  server.proxy?.registerCommand(server.name + '_ping', (args) => ({ pong: true, args }));
  ${extra}
}
`;
}
