"""Stored tool results, loaded whole into kernel code: ``mcptools.results.load(handle)``.

A tool result too large for the model (the host's ``result_preview``) reaches it as a preview, a
``results://<id>`` link and a handle (``_meta["io.mcpbox/result"]``). Code gets the whole of it
here, without it passing through the model::

    from mcptools import results
    df = results.load("results://Q2hhbmdlIHRoaXMgaWQ")   # or the bare handle
    df["price"].sum()

The result is read as the caller of the running cell: only a result that caller's own tool call
stored can be loaded (the host's result store decides; another caller's handle, a forged one and
an expired one raise ``ResultUnavailable`` saying which).

What ``load`` returns:

- a text result: the ``str``;
- a JSON result: the parsed value (``dict``, ``list``, ...), except that tabular JSON becomes a
  pandas ``DataFrame`` when pandas is importable and ``as_frame`` is true (the default):
  - a non-empty list whose items are all objects: one row per item;
  - an object with exactly one value that is such a list (say ``{"items": [...], "total": 5}``):
    that list's rows, the object's other keys in ``df.attrs``.

A result the store had to cut (over its ``max_result_bytes``) loads what was kept and warns with
the reason.
"""

import json
import warnings

from ._runtime import ToolCallError, _post_once

__all__ = ["ResultUnavailable", "load"]


class ResultUnavailable(ToolCallError):
    """No stored result for this handle and caller: unknown, another caller's, expired or dropped
    (the message says which and what to do)."""


def _handle_of(handle):
    """The id or ``results://`` link a handle was given as: a string, or the ``_meta`` entry."""
    if isinstance(handle, dict):
        handle = handle.get("handle") or handle.get("uri")
    if not isinstance(handle, str) or not handle.strip():
        raise TypeError(
            "results.load expects a result's handle or its results:// link (a non-empty str), "
            f"got {type(handle).__name__}"
        )
    return handle


def _rows_of(value):
    """The list of objects a tabular JSON value holds, and the object's other keys; else None."""
    def is_table(v):
        return isinstance(v, list) and len(v) > 0 and all(isinstance(item, dict) for item in v)

    if is_table(value):
        return value, {}
    if isinstance(value, dict):
        tables = [key for key, v in value.items() if is_table(v)]
        if len(tables) == 1:
            rest = {key: v for key, v in value.items() if key != tables[0]}
            return value[tables[0]], rest
    return None


def _as_frame(value):
    rows = _rows_of(value)
    if rows is None:
        return value
    try:
        import pandas
    except ImportError:
        return value
    frame = pandas.DataFrame(rows[0])
    frame.attrs.update(rows[1])
    return frame


def load(handle, *, as_frame=True):
    """The whole of a stored tool result: its handle (``_meta["io.mcpbox/result"]["handle"]``),
    its ``results://`` link, or that ``_meta`` entry itself.

    Returns ``str`` for text, the parsed JSON otherwise — a pandas ``DataFrame`` for tabular JSON
    (see the module's docstring) unless ``as_frame=False``. Raises ``ResultUnavailable``.
    """
    reply = _post_once("/result", {"handle": _handle_of(handle)})
    if "error" in reply:
        error_class = ResultUnavailable if reply.get("type") == "result_unavailable" else ToolCallError
        raise error_class(str(reply["error"]))
    result = reply.get("result") or {}
    if result.get("truncated"):
        warnings.warn(str(result["truncated"]), stacklevel=2)
    text = result.get("text", "")
    if result.get("kind") != "json":
        return text
    value = json.loads(text)
    return _as_frame(value) if as_frame else value
