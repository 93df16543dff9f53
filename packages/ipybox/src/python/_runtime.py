"""Runtime of the generated MCP tool modules: sends tool calls to the ipybox tool server.

Standard library only, so it works in any Python 3.11 environment without installing anything.
The tool server's address comes from the environment the kernel was started with:

    IPYBOX_TOOL_SERVER        http://127.0.0.1:PORT  or  unix:/path/to/socket
    IPYBOX_TOOL_SERVER_TOKEN  bearer token the tool server expects (optional)

Server parameters (commands, URLs, API keys) never reach this process: the tool server holds them.
"""

import asyncio
import http.client
import json
import os
import socket
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


class _UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP over a Unix domain socket (the sandbox cuts TCP, sockets in the workspace remain)."""

    def __init__(self, path):
        super().__init__("localhost")
        self._path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(self._path)
        except BaseException:
            sock.close()
            raise
        self.sock = sock


def _connection():
    address = os.environ.get(ADDRESS_ENV, "")
    if address.startswith("unix:"):
        return _UnixHTTPConnection(address[len("unix:"):])
    url = urllib.parse.urlsplit(address)
    if url.scheme != "http" or not url.hostname:
        raise ToolServerUnavailable(
            f"{ADDRESS_ENV} must be http://HOST:PORT or unix:/path, got {address!r}"
            if address
            else f"{ADDRESS_ENV} is not set: this process was not started by ipybox"
        )
    # No socket timeout: the tool server enforces the call and approval timeouts itself, and a
    # human approving a call may take a while.
    return http.client.HTTPConnection(url.hostname, url.port or 80)


# One kept-alive connection per thread (calls from several threads or `call_tool_async` run side
# by side): connecting for every call costs more than the call itself.
_local = threading.local()

# What a kept-alive connection the server closed while it sat idle fails with. The request never
# reached the server then, so sending it once more on a new connection is safe.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


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
            conn.request("POST", "/run", body=body, headers=headers)
            response = conn.getresponse()
            raw = response.read()
        except _STALE:
            conn.close()
            conn = _local.conn = None
            if reused:
                continue
            raise
        except BaseException:
            # Interrupted or failed mid-exchange: the connection's state is unknown.
            conn.close()
            _local.conn = None
            raise
        if response.will_close:
            conn.close()
            _local.conn = None
        return response.status, raw


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

    try:
        status, raw = _exchange(body, headers)
    except (OSError, http.client.HTTPException) as error:
        raise ToolServerUnavailable(f"cannot reach the tool server: {error}") from None
    try:
        reply = json.loads(raw)
    except ValueError:
        reply = None
    if not isinstance(reply, dict):
        raise ToolServerUnavailable(f"unexpected reply from the tool server (HTTP {status})")
    if "error" in reply:
        error_class = _ERROR_TYPES.get(reply.get("type"), ToolCallError)
        raise error_class(str(reply["error"]))
    return reply.get("result")


async def call_tool_async(server_name, tool_name, tool_args=None, timeout=None):
    """`call_tool` in a worker thread, so several calls can run at once (`asyncio.gather`) and
    the kernel's event loop keeps serving while they wait."""
    return await asyncio.to_thread(call_tool, server_name, tool_name, tool_args, timeout)
