#!/usr/bin/env bash
# Factory + echo, all in one: the interactive client starts mcp-factory over stdio and talks to it.
# Try `tools`, `echo hello`, `quit`. Lines piped on stdin run as a script:
#   printf 'echo hello\n' | examples/scripts/run_factory_echo.sh
set -euo pipefail
BIN="$(cd "$(dirname "$0")/../.." && pwd)/node_modules/.bin"
exec "$BIN/mcp-client" --quiet-server --no-history -- "$BIN/mcp-factory" -p echo
