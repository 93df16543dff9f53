// Source mode of the bins in a checkout, which a developer asks for with MCPBOX_BIN=source (and
// the test runner does, scripts/run-tests.mjs): packages/*/bin/*.js import this before their
// TypeScript sources (the published packages ship none), which then run through tsx, so an edit
// takes effect without a build; `@mcpbox/*` packages resolve to their sources through the
// `mcpbox-source` export condition (the hook below adds it to every resolution, as
// `node --conditions=mcpbox-source` would). Without it the bins run the compiled dist/.
import { register as registerHooks } from 'node:module';
import { register as registerCjs } from 'tsx/cjs/api';
import { register } from 'tsx/esm/api';

register();
registerCjs();
// Registered last, so it runs first and tsx resolves with the condition added.
registerHooks(new URL('./source-condition-hook.mjs', import.meta.url));
// Tells the framework's lazy TypeScript loader (plugins/typescript.ts) that tsx is in place.
globalThis[Symbol.for('mcpbox.typescript')] = Promise.resolve();
