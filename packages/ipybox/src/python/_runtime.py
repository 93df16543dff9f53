"""Runtime of the generated MCP tool modules: sends tool calls to the ipybox tool server.

Standard library only, so it works in any Python 3.11 environment without installing anything.
The tool server's address comes from the environment the kernel was started with:

    IPYBOX_TOOL_SERVER        http://127.0.0.1:PORT  or  unix:/path/to/socket
    IPYBOX_TOOL_SERVER_TOKEN  bearer token the tool server expects (optional)

Server parameters (commands, URLs, API keys) never reach this process: the tool server holds them.
"""

import asyncio
import json
import os
import socket
import sys
import threading
import urllib.parse

__all__ = [
    "ApprovalError",
    "ApprovalTimeout",
    "ApprovalUnavailable",
    "InputUnavailable",
    "ToolCallError",
    "ToolError",
    "ToolNotFound",
    "ToolRejected",
    "ToolServerUnavailable",
    "ToolTimeout",
    "call_tool",
    "call_tool_async",
]

ADDRESS_ENV = "IPYBOX_TOOL_SERVER"
TOKEN_ENV = "IPYBOX_TOOL_SERVER_TOKEN"


class ToolCallError(Exception):
    """Base class of every failure of a tool call made from code."""


class ToolNotFound(ToolCallError):
    """The MCP server or the tool is not known to the tool server."""


class ToolError(ToolCallError):
    """The tool ran and reported an error, or its MCP server failed (for example crashed)."""


class InputUnavailable(ToolError):
    """The MCP server asked the user for input during the call (e.g. to confirm), and nobody could
    answer: no cell running, a client without elicitation, or no answer in time."""


class ToolTimeout(ToolCallError):
    """The tool did not answer within the call's timeout."""


class ApprovalError(ToolCallError):
    """The call was not approved, so the tool was not run."""


class ToolRejected(ApprovalError):
    """The approver rejected the call."""


class ApprovalTimeout(ApprovalError):
    """No approval decision arrived in time."""


class ApprovalUnavailable(ApprovalError):
    """Nobody is there to approve the call (no approval client connected)."""


class ToolServerUnavailable(ToolCallError):
    """The tool server cannot be reached or answered something that is not a tool server reply."""


_ERROR_TYPES = {
    "not_found": ToolNotFound,
    "tool_error": ToolError,
    "timeout": ToolTimeout,
    "rejected": ToolRejected,
    "approval_timeout": ApprovalTimeout,
    "approval_unavailable": ApprovalUnavailable,
    "input_unavailable": InputUnavailable,
}


class _BadReply(Exception):
    """The tool server's answer is not the HTTP/1.1 response it always sends."""


class _Stale(Exception):
    """The kept-alive connection was closed by the server before it answered anything."""


class _Connection:
    """One kept-alive HTTP/1.1 connection to the tool server, over TCP or a Unix socket.

    A minimal client for the one request this module makes (``POST /run`` with a JSON body) and
    the one kind of answer the tool server gives (``Content-Length``, no chunks). http.client did
    the same with three times the kernel's CPU per call (its header parsing goes through the
    email package, and it sends a request's head and body in two writes): tool calls from code
    are the hot path.
    """

    def __init__(self, address):
        self.address = address
        self._sock = None
        self._pending = bytearray()

    def _connect(self):
        if self.address.startswith("unix:"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            host = "localhost"
            try:
                sock.connect(self.address[len("unix:"):])
            except BaseException:
                sock.close()
                raise
        else:
            url = urllib.parse.urlsplit(self.address)
            if url.scheme != "http" or not url.hostname:
                raise ToolServerUnavailable(
                    f"{ADDRESS_ENV} must be http://HOST:PORT or unix:/path, got {self.address!r}"
                )
            port = url.port or 80
            # No socket timeout: the tool server enforces the call and approval timeouts
            # itself, and a human approving a call may take a while.
            sock = socket.create_connection((url.hostname, port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            host = f"{url.hostname}:{port}"
        self._sock = sock
        self._host = host

    def exchange(self, body, headers, path="/run"):
        """POSTs `body` to `path`; returns (status, raw body, whether the server keeps the
        connection). Raises `_Stale` when a kept-alive connection turns out to be closed."""
        if self._sock is None:
            self._connect()
        lines = [f"POST {path} HTTP/1.1\r\nHost: {self._host}\r\nContent-Length: {len(body)}"]
        lines.extend(f"{name}: {value}" for name, value in headers.items())
        self._sock.sendall("\r\n".join(lines).encode("latin-1") + b"\r\n\r\n" + body)
        pending = self._pending
        while (end := pending.find(b"\r\n\r\n")) < 0:
            if not self._receive(stale_if_closed=not pending):
                raise _BadReply("the connection closed in the middle of the reply's head")
        head = bytes(pending[:end]).decode("latin-1").split("\r\n")
        del pending[: end + 4]
        version, _, rest = head[0].partition(" ")
        status = rest[:3]
        if not version.startswith("HTTP/1.") or not status.isdigit():
            raise _BadReply(f"not an HTTP/1.1 status line: {head[0][:80]!r}")
        fields = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip()
        length = fields.get("content-length", "")
        if not length.isdigit():
            raise _BadReply("a reply without a Content-Length")
        size = int(length)
        while len(pending) < size:
            if not self._receive():
                raise _BadReply("the connection closed in the middle of the reply")
        raw = bytes(pending[:size])
        del pending[:size]
        keep = fields.get("connection", "").lower() != "close" and version != "HTTP/1.0"
        return int(status), raw, keep

    def _receive(self, stale_if_closed=False):
        try:
            data = self._sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            if stale_if_closed:
                raise _Stale() from None
            raise
        if not data and stale_if_closed:
            raise _Stale()
        self._pending += data
        return bool(data)

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._pending.clear()


def _connection():
    address = os.environ.get(ADDRESS_ENV, "")
    if not address:
        raise ToolServerUnavailable(
            f"{ADDRESS_ENV} is not set: this process was not started by ipybox"
        )
    return _Connection(address)


# One kept-alive connection per thread (calls from several threads or `call_tool_async` run side
# by side): connecting for every call costs more than the call itself.
_local = threading.local()


def _exchange(body, headers):
    """POSTs `body` to /run on this thread's connection; returns (status, raw body)."""
    conn = getattr(_local, "conn", None)
    # A forked child must not share its parent's socket; a changed address needs a new one.
    key = (os.getpid(), os.environ.get(ADDRESS_ENV, ""))
    if conn is not None and getattr(_local, "key", None) != key:
        if _local.key[0] == key[0]:
            conn.close()
        conn = None
    for reused in ((True, False) if conn is not None else (False,)):
        if conn is None:
            conn = _connection()
            _local.conn, _local.key = conn, key
        try:
            status, raw, keep = conn.exchange(body, headers)
        except (_Stale, BrokenPipeError, ConnectionResetError):
            # A kept-alive connection the server closed while it sat idle: the request never
            # reached the server, so sending it once more on a new connection is safe.
            conn.close()
            conn = _local.conn = None
            if reused:
                continue
            raise ToolServerUnavailable(
                "cannot reach the tool server: it closed the connection without answering"
            ) from None
        except BaseException:
            # Interrupted or failed mid-exchange: the connection's state is unknown.
            conn.close()
            _local.conn = None
            raise
        if not keep:
            conn.close()
            _local.conn = None
        return status, raw


_TRACE_FIELDS = ("traceparent", "tracestate", "baggage")


def _trace_context():
    """The running cell's W3C trace context, as ipybox put it into the cell's execute_request
    metadata when tracing is on (else nothing), so the tool server continues the cell's trace."""
    kernel = getattr(_ipython(), "kernel", None)
    if kernel is None:
        return {}
    try:
        metadata = kernel.get_parent().get("metadata") or {}
    except Exception:  # an IPython without a kernel parent: no context to pass on
        return {}
    return {
        name: value
        for name in _TRACE_FIELDS
        if isinstance(value := metadata.get(name), str) and "\r" not in value and "\n" not in value
    }


def _ipython():
    get_ipython = sys.modules.get("IPython") and getattr(sys.modules["IPython"], "get_ipython", None)
    return get_ipython() if get_ipython else None


def _post_once(path, payload):
    """POSTs `payload` (JSON) to `path` on a connection of its own, closed afterwards, and returns
    the reply (a dict). For the tool server's other routes: a kept-alive connection that sent
    anything but ``POST /run`` leaves the server's fast lane for good, so the calls' connection
    never does."""
    headers = {"Content-Type": "application/json"}
    token = os.environ.get(TOKEN_ENV)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    conn = _connection()
    try:
        status, raw, _ = conn.exchange(body, headers, path)
    except (OSError, _BadReply, _Stale) as error:
        raise ToolServerUnavailable(f"cannot reach the tool server: {error}") from None
    finally:
        conn.close()
    return _reply_of(status, raw)


def _reply_of(status, raw):
    """The tool server's JSON reply (always an object), or `ToolServerUnavailable`."""
    try:
        reply = json.loads(raw)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise ToolServerUnavailable(f"unexpected reply from the tool server (HTTP {status})")
    return reply


def call_tool(server_name, tool_name, tool_args=None, timeout=None):
    """Runs `tool_name` on the MCP server `server_name` with `tool_args` (a JSON-able dict).

    Returns the tool's structured content when it sent one, else its text. `timeout` (seconds)
    overrides the tool server's default call timeout. Raises a `ToolCallError` subclass.
    """
    if tool_args is None:
        tool_args = {}
    if not isinstance(tool_args, dict):
        raise TypeError(f"tool arguments must be a dict, got {type(tool_args).__name__}")
    call = {"server_name": server_name, "tool_name": tool_name, "tool_args": tool_args}
    if timeout is not None:
        call["timeout"] = float(timeout)
    try:
        body = json.dumps(call, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise TypeError(f"tool arguments must be JSON-serializable: {error}") from None

    headers = {"Content-Type": "application/json"}
    token = os.environ.get(TOKEN_ENV)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    headers.update(_trace_context())

    try:
        status, raw = _exchange(body, headers)
    except (OSError, _BadReply) as error:
        raise ToolServerUnavailable(f"cannot reach the tool server: {error}") from None
    reply = _reply_of(status, raw)
    if "error" in reply:
        error_class = _ERROR_TYPES.get(reply.get("type"), ToolCallError)
        raise error_class(str(reply["error"]))
    return reply.get("result")


async def call_tool_async(server_name, tool_name, tool_args=None, timeout=None):
    """`call_tool` in a worker thread, so several calls can run at once (`asyncio.gather`) and
    the kernel's event loop keeps serving while they wait."""
    return await asyncio.to_thread(call_tool, server_name, tool_name, tool_args, timeout)
