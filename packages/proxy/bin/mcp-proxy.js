#!/usr/bin/env node
import { launch } from '@mcpbox/framework/launch';

await launch(new URL('..', import.meta.url), 'proxy');
