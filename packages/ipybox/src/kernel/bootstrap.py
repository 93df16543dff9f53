"""Start an IPython kernel for mcpbox's ZeroMQ launcher.

Run as ``python3 bootstrap.py -f <connection file> [IPKernelApp options]``. Compared to
``python3 -m ipykernel_launcher`` it does four things more:

1. On Linux, asks the OS to SIGKILL this process when its parent dies (PR_SET_PDEATHSIG). ipykernel's
   own parent poller only notices a parent death when the orphan is re-parented to PID 1, which a
   container's sub-reaper defeats; a kernel must never outlive a SIGKILLed host process.
2. Keeps two imports ipykernel and IPython make at start-up, and mcpbox never uses, out of the
   start-up path: ``debugpy`` (the Jupyter debugger protocol; about a third of the import time) and
   ``jedi`` (IPython's tab completion). Both are blocked only while the kernel initializes, so user
   code can still import them.
3. Forks a watchdog that SIGKILLs the kernel's process group when the kernel dies, so what a cell
   started (a subprocess, a server) ends with the kernel instead of living on under PID 1.
4. After the kernel has bound its sockets (ports 0 in the connection file let ZeroMQ pick free ports
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


def _watch_group():
    """Forks a watchdog that ends the kernel's process group when the kernel ends.

    PR_SET_PDEATHSIG ends the kernel with its owner, but what a cell started
    (``subprocess.Popen(['sleep', '300'])``) would be re-parented to PID 1 and live on. The
    watchdog is the kernel's child, so the OS tells it when the kernel dies, however it dies
    (SIGKILL included); it then SIGKILLs the group, itself last. It ignores the signals meant for
    the kernel (interrupts, the launcher's SIGTERM) and holds none of its pipes. Only a kernel
    that leads its own process group (the launcher starts it so) gets one: the group is then
    the kernel's, never its owner's.
    """
    kernel = os.getpid()
    if not sys.platform.startswith("linux") or os.getpgid(0) != kernel:
        return
    if os.fork() != 0:
        return
    try:
        import ctypes
        import signal

        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(signum, signal.SIG_IGN)
        signal.signal(signal.SIGUSR1, lambda *_: os.killpg(0, signal.SIGKILL))
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_NAME, PR_SET_PDEATHSIG = 15, 1
        libc.prctl(PR_SET_NAME, b"mcpbox-watchdog", 0, 0, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)
        if os.getppid() != kernel:  # the kernel died before prctl ran
            os.killpg(0, signal.SIGKILL)
        while True:
            signal.pause()
    finally:
        os._exit(0)


_UNUSED_AT_START = ("debugpy", "jedi")


def main():
    _die_with_parent()
    _watch_group()
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
