"""Start an IPython kernel for mcpbox's ZeroMQ launcher.

Run as ``python3 bootstrap.py -f <connection file> [IPKernelApp options]``. Compared to
``python3 -m ipykernel_launcher`` it does two things more:

1. On Linux, asks the OS to SIGKILL this process when its parent dies (PR_SET_PDEATHSIG). ipykernel's
   own parent poller only notices a parent death when the orphan is re-parented to PID 1, which a
   container's sub-reaper defeats; a kernel must never outlive a SIGKILLed host process.
2. Keeps two imports ipykernel and IPython make at start-up, and mcpbox never uses, out of the
   start-up path: ``debugpy`` (the Jupyter debugger protocol; about a third of the import time) and
   ``jedi`` (IPython's tab completion). Both are blocked only while the kernel initializes, so user
   code can still import them.
3. After the kernel has bound its sockets (ports 0 in the connection file let ZeroMQ pick free ports
   itself, so there is no race between choosing a port and binding it) it writes one line,
   ``MCPBOX_KERNEL_READY {"shell": ..., ...}``, to the original stdout. ipykernel redirects fd 1 to
   iopub during start-up, so the line goes to a duplicate taken before that.

Standard library and ipykernel only: this file runs under the system interpreter.
"""

import json
import os
import sys


def _die_with_parent():
    expected_parent = int(os.environ.pop("MCPBOX_PARENT_PID", "0") or 0)
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            PR_SET_PDEATHSIG = 1
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except Exception as error:  # pragma: no cover - best effort on unusual libcs
            print(f"mcpbox bootstrap: PR_SET_PDEATHSIG unavailable: {error}", file=sys.stderr)
    # The parent may have died before prctl ran: then nobody will signal us.
    if expected_parent and os.getppid() != expected_parent:
        os._exit(1)


_UNUSED_AT_START = ("debugpy", "jedi")


def main():
    _die_with_parent()
    ready_fd = os.dup(1)
    blocked = [name for name in _UNUSED_AT_START if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # makes "import name" raise ImportError, which both callers handle
    from ipykernel.kernelapp import IPKernelApp

    app = IPKernelApp.instance()
    app.initialize(sys.argv[1:])
    for name in blocked:
        del sys.modules[name]
    ports = {
        "shell": app.shell_port,
        "iopub": app.iopub_port,
        "stdin": app.stdin_port,
        "control": app.control_port,
        "hb": app.hb_port,
        "pid": os.getpid(),
    }
    os.write(ready_fd, ("MCPBOX_KERNEL_READY " + json.dumps(ports) + "\n").encode())
    os.close(ready_fd)
    app.start()


if __name__ == "__main__":
    main()
