// Test plugin in a folder: its tool text comes from a sibling file.
import type { PluginServer } from '../../../contract/plugin.ts';
import { greeting } from './helper.ts';

export function register(server: PluginServer): void {
  server.registerTool('folder_greet', {}, () => greeting);
}
