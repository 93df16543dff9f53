// The client SDK stays out of a server's start-up: importing the framework's entry must not
// import `@modelcontextprotocol/client` (it cost every server ~35 ms of cold start); the first
// upstream connect does (the other client tests connect real upstreams through it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';

/** A resolve hook that fails any import of the client SDK, naming it. */
const REFUSE_CLIENT_SDK = `
export async function resolve(specifier, context, next) {
  if (/^@modelcontextprotocol\\/client(\\/|$)/.test(specifier)) {
    throw new Error('imported ' + specifier);
  }
  return next(specifier, context);
}`;

/** Runs `body` as a module in a fresh Node (sources through tsx) under that hook. */
function runRefusingClientSdk(body: string): Promise<{ code: number | null; stderr: string }> {
  const hook = `data:text/javascript,${encodeURIComponent(REFUSE_CLIENT_SDK)}`;
  const script = `import { register } from 'node:module';\nregister(${JSON.stringify(hook)});\n${body}`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=mcpbox-source', '--import', 'tsx', '--input-type=module', '-e', script],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

test('importing @mcpbox/framework does not import the MCP client SDK', async () => {
  const framework = await runRefusingClientSdk(
    "const { UpstreamConnection } = await import('@mcpbox/framework');\n" +
      "if (typeof UpstreamConnection !== 'function') throw new Error('no UpstreamConnection');",
  );
  assert.equal(framework.code, 0, framework.stderr);

  // The hook does catch the SDK: the same check fails for a module that imports it.
  const client = await runRefusingClientSdk("await import('@modelcontextprotocol/client');");
  assert.notEqual(client.code, 0);
  assert.match(client.stderr, /imported @modelcontextprotocol\/client/);
});
