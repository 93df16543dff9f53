#!/usr/bin/env node
// Runs the TypeScript sources directly: tsx compiles on load, so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/client.ts');
