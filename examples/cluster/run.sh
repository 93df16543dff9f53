#!/usr/bin/env bash
# The example cluster on loopback (see run.ts): Redis, a Jupyter server, three mcp-proxy
# replicas with ipybox, HAProxy. Ctrl-C stops everything.
#   examples/cluster/run.sh [--free-ports]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE/../.."
exec node --conditions=mcpbox-source --import tsx "$HERE/run.ts" "$@"
