#!/usr/bin/env bash
# A standalone framework server (examples/standalone.ts, no plugins) over HTTP, configured by
# configs/framework.example.yaml. Port: PORT (default 8000). A framework server has no health
# server of its own (mcp-factory and mcp-proxy add one).
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
cd "$HERE/.."
exec node --conditions=mcpbox-source --import tsx "$HERE/standalone.ts" "$HERE/configs/framework.example.yaml"
