#!/bin/sh
# A "Python interpreter" that starts but never becomes a kernel: records its pid, then hangs.
echo $$ > "$MCPBOX_TEST_PIDFILE"
exec sleep 600
