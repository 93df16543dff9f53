#!/usr/bin/env bash
# Factory over Streamable HTTP with the plugins listed in configs/factory.example.yaml.
#   examples/scripts/run_factory_http.sh            # http://127.0.0.1:8000/mcp, health on 8001
#   PORT=9000 HEALTH_PORT=9001 examples/scripts/run_factory_http.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$HERE/../node_modules/.bin"
exec "$BIN/mcp-factory" -c "$HERE/configs/factory.example.yaml" \
  --http "${PORT:-8000}" --health-port "${HEALTH_PORT:-8001}"
