/**
 * Where `socat-with-parent.sh` lives: the `socatPath` given to sandbox-runtime when `setpriv` is
 * there, so the socat bridges it starts die with this process. Both the kernel's sandbox and a
 * sandboxed MCP server use it; the path is resolved next to this module, which ships beside the
 * script.
 *
 * @module
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SOCAT_WITH_PARENT = join(
  dirname(fileURLToPath(import.meta.url)),
  'socat-with-parent.sh',
);
