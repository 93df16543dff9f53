#!/usr/bin/env bash
# Proxy + echo over Streamable HTTP, with the management API for load/unload/reload.
#   examples/scripts/run_proxy_http.sh      # MCP http://127.0.0.1:12200/mcp, health 12201, management 12299
#   mcp-proxy load greet                     # from another terminal, while clients stay connected
# Ports: PORT, HEALTH_PORT, MGMT_PORT. A management token: MCP_MGMT_TOKEN.
set -euo pipefail
BIN="$(cd "$(dirname "$0")/../.." && pwd)/node_modules/.bin"
exec "$BIN/mcp-proxy" serve -a echo \
  --http "${PORT:-12200}" --health-port "${HEALTH_PORT:-12201}" --mgmt-port "${MGMT_PORT:-12299}"
