/**
 * The real `mcp-client` on a pseudo-terminal (util-linux `script`, no native pty module):
 * tab completion, history recall with the up arrow, history persisted to ~/.mcp_client_history
 * (HOME points at a temp dir), a list_changed notice printed while the prompt is shown, and
 * Ctrl-C cancelling a running call.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { growingServerCommand, hasScript, startClientInPty } from './__fixtures__/driveClient.ts';

const UP = '\x1b[A';

test('on a terminal: completion, history recall and persistence, Ctrl-C cancels a call', {
  skip: hasScript() ? false : 'util-linux `script` is not installed',
}, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'mcp-client-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const client = startClientInPty(t, ['--', ...growingServerCommand], {
    ...process.env,
    HOME: home,
  });
  await client.waitFor('Connected to growing 1.0.0');
  // Keystrokes typed before readline switches the terminal to raw mode would be echoed and
  // line-buffered by the tty itself, so wait for the prompt first.
  await client.waitFor('mcp> ');

  client.write('sh\t'); // the only command or tool starting with "sh"
  await client.waitFor('shout ');
  client.write('hi there\r');
  await client.waitFor('HI THERE');

  await client.waitFor('mcp> ');
  client.write(UP);
  await client.waitFor('shout hi there');
  client.write('\r');
  await client.waitFor('HI THERE');

  client.write('grow\r');
  await client.waitFor('Tool list refreshed: 4 -> 6 tools (+twice, +thrice)');
  client.write('tw\t'); // completion knows the new tool
  await client.waitFor('twice ');
  client.write('21\r');
  await client.waitFor('42');

  client.write('slow\r');
  await client.waitFor('progress 1/2 started');
  client.write('\x03'); // Ctrl-C cancels the running call, not the client
  await client.waitFor('Cancelled.');
  client.write('shout still here\r');
  await client.waitFor('STILL HERE');

  client.write('quit\r');
  assert.equal(await client.exited, 0, client.output());
  const history = readFileSync(join(home, '.mcp_client_history'), 'utf8');
  assert.deepEqual(history.trim().split('\n'), [
    'shout hi there',
    'grow',
    'twice 21',
    'slow',
    'shout still here',
    'quit',
  ]);
});
