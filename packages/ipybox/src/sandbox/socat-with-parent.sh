#!/bin/sh
# socat for sandbox-runtime (its `socatPath`): the host-side bridges it starts are children of our
# Node process, and socat does not notice when that process dies. PR_SET_PDEATHSIG makes the
# kernel SIGKILL this socat when its parent goes, even when the parent was SIGKILLed.
# Inside the sandbox the same program runs the in-namespace relays; there it changes nothing.
exec setpriv --pdeathsig KILL -- socat "$@"
