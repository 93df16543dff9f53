// Source mode of the bins in a checkout (packages/*/bin/*.js import this when the package's src/
// is there, which the published packages do not ship): the TypeScript sources run through tsx,
// so an edit takes effect without a build, and `@mcpbox/*` packages resolve to their sources
// through the `mcpbox-source` export condition (the hook below adds it to every resolution, as
// `node --conditions=mcpbox-source` would). MCPBOX_BIN=dist runs the compiled bins instead.
import { register as registerHooks } from 'node:module';
import { register as registerCjs } from 'tsx/cjs/api';
import { register } from 'tsx/esm/api';

register();
registerCjs();
// Registered last, so it runs first and tsx resolves with the condition added.
registerHooks(new URL('./source-condition-hook.mjs', import.meta.url));
// Tells the framework's lazy TypeScript loader (plugins/typescript.ts) that tsx is in place.
globalThis[Symbol.for('mcpbox.typescript')] = Promise.resolve();
