#!/usr/bin/env bash
# Proxy + echo + greet over Streamable HTTP, every setting from configs/proxy.example.yaml
# (metrics on, tool-call log in ~/.mcp_proxy/logs). Ports: PORT, HEALTH_PORT, MGMT_PORT.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
exec "$HERE/../node_modules/.bin/mcp-proxy" serve -c "$HERE/configs/proxy.example.yaml"
