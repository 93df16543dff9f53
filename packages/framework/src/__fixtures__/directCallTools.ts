// Tools whose calls do more than answer, for the tests of calls answered past the SDK: one asks
// the client a question mid-call, one runs until its call is aborted, one reads its HTTP request.
import type { McpboxServer } from '../server.ts';

export interface DirectCallHooks {
  /** A `wait_for_abort` call has started. */
  running?(): void;
  /** A `wait_for_abort` call saw its signal abort. */
  aborted(): void;
}

export function registerDirectCallTools(server: McpboxServer, hooks: DirectCallHooks): void {
  server.registerTool('request_line', {}, (ctx) => {
    const req = ctx.http?.req;
    return req ? `${req.method} ${new URL(req.url).pathname}` : 'no request';
  });
  server.registerTool('interview', {}, async (ctx) => {
    const reply = await ctx.elicit({
      mode: 'form',
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    });
    return `hello ${reply.content?.name}`;
  });
  server.registerTool(
    'wait_for_abort',
    {},
    (ctx) =>
      new Promise<string>((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          hooks.aborted();
          resolve('aborted');
        });
        hooks.running?.();
      }),
  );
}
