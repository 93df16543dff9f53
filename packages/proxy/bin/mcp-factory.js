#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx compiles on load, so no build step is needed.
import { register as registerCjs } from 'tsx/cjs/api';
import { register } from 'tsx/esm/api';

register();
// Also for require(): a .ts plugin in a folder whose package.json is not "type": "module" is
// CommonJS to Node, and only tsx's CommonJS hook compiles it.
registerCjs();
await import('../src/cli/factory.ts');
