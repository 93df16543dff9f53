#!/usr/bin/env bash
# The interactive client against a running proxy (run_proxy_http.sh or run_proxy_full.sh).
#   examples/scripts/connect_proxy_http.sh                 # http://127.0.0.1:12200/mcp
#   PORT=9000 MCP_TOKEN=... examples/scripts/connect_proxy_http.sh
set -euo pipefail
BIN="$(cd "$(dirname "$0")/../.." && pwd)/node_modules/.bin"
exec "$BIN/mcp-client" --no-history "http://127.0.0.1:${PORT:-12200}/mcp"
