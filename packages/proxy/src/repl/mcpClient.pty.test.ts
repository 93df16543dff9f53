/**
 * The real `mcp-client` on a pseudo-terminal (util-linux `script`, no native pty module):
 * tab completion, history recall with the up arrow, history persisted to ~/.mcp_client_history
 * (HOME points at a temp dir) with command lines only, never answers to questions, a
 * list_changed notice printed while the prompt is shown, and Ctrl-C cancelling a running call.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  askingServerCommand,
  growingServerCommand,
  hasScript,
  startClientInPty,
} from './__fixtures__/driveClient.ts';

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

test('on a terminal: answers to parameter, approval and form questions stay out of history', {
  skip: hasScript() ? false : 'util-linux `script` is not installed',
}, async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'mcp-client-home-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const client = startClientInPty(t, ['--', ...askingServerCommand], {
    ...process.env,
    HOME: home,
  });
  await client.waitFor('Connected to asking 1.0.0');
  await client.waitFor('mcp> ');

  client.write('login\r');
  await client.waitFor('password (string, required): ');
  client.write('hunter2-secret\r');
  await client.waitFor('logged in (14 characters)');
  const historyFile = join(home, '.mcp_client_history');
  assert.equal(readFileSync(historyFile, 'utf8'), 'login\n', 'the password is not history');

  client.write('guarded\r');
  await client.waitFor('Approve (Run files.rm)? [Y]es, [n]o, [c]ancel: ');
  client.write('yes\r');
  await client.waitFor('"approve":true');

  client.write('configure\r');
  await client.waitFor('[c]ancel: ');
  client.write('y\r');
  await client.waitFor('retries (integer, required, Enter for 3): ');
  client.write('41\r');
  await client.waitFor('"retries":41');

  // Up recalls the last command, not the last answer.
  await client.waitFor('mcp> ');
  client.write(UP);
  await client.waitFor('configure');
  client.write('\x15quit\r'); // Ctrl-U clears the recalled line

  assert.equal(await client.exited, 0, client.output());
  const history = readFileSync(historyFile, 'utf8');
  assert.deepEqual(history.trim().split('\n'), ['login', 'guarded', 'configure', 'quit']);
  assert.doesNotMatch(history, /hunter2/);
});
