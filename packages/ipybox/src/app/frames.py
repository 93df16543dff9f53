"""Kernel side of the ipybox viewer (an MCP App): keeps displayed pandas DataFrames for paging.

Installed by the server into a kernel whose cells come from a client that renders MCP Apps, as the
module ``_ipybox_viewer`` (``sys.modules``; nothing is added to the user's namespace). From then
on, every DataFrame the kernel displays (a cell's value or ``display(df)``) also gets an
``application/vnd.ipybox.frame+json`` representation, ``{"key", "rows", "columns"}``, and is kept
here under that key, so the viewer can ask for one page of it, sorted, without the frame ever
entering the model's context. pandas is never imported here: the formatter is registered by
type name and fires only once the user's code has imported pandas itself.

Only the last ``MAX_FRAMES`` frames are kept (IPython's own ``Out`` history keeps every result;
this keeps a few more references at most). A frame the user mutates later pages as it is now.

Standard library and IPython only.
"""

import json
from collections import OrderedDict

MIME = "application/vnd.ipybox.frame+json"
MAX_FRAMES = 16
#: The most rows one page returns, and the most characters of one cell's text.
MAX_PAGE_ROWS = 500
MAX_CELL_CHARS = 500

_frames = OrderedDict()
_next = 0
#: The sort order last asked for, per frame key: (column, descending, positions).
_orders = {}


def _keep(frame):
    global _next
    for key, kept in _frames.items():
        if kept is frame:
            _frames.move_to_end(key)
            return key
    _next += 1
    key = f"f{_next}"
    _frames[key] = frame
    while len(_frames) > MAX_FRAMES:
        old, _ = _frames.popitem(last=False)
        _orders.pop(old, None)
    return key


def _describe(frame):
    return {
        "key": _keep(frame),
        "rows": int(frame.shape[0]),
        "columns": [str(column) for column in frame.columns],
        "dtypes": [str(dtype) for dtype in frame.dtypes],
    }


def install(shell):
    """Registers the DataFrame formatter for ``MIME`` (idempotent)."""
    from IPython.core.formatters import JSONFormatter
    from traitlets import Unicode

    formatters = shell.display_formatter.formatters
    if MIME in formatters:
        return

    class FrameFormatter(JSONFormatter):
        format_type = Unicode(MIME)
        print_method = "_ipybox_frame_"

    formatter = FrameFormatter(parent=shell.display_formatter)
    formatter.for_type_by_name("pandas.core.frame", "DataFrame", _describe)
    formatters[MIME] = formatter


def _cell(value):
    """One value as JSON: numbers and booleans as they are, the rest as (short) text."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    try:
        import numpy

        if isinstance(value, numpy.bool_):
            return bool(value)
        if isinstance(value, numpy.integer):
            return int(value)
        if isinstance(value, numpy.floating):
            return _cell(float(value))
    except ImportError:  # pragma: no cover - pandas brings numpy
        pass
    try:
        import pandas

        if value is pandas.NaT or (pandas.api.types.is_scalar(value) and pandas.isna(value)):
            return None
    except (ImportError, TypeError, ValueError):
        pass
    text = str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


def _positions(key, frame, column, descending):
    """Row positions in sort order (stable; missing values last), cached per frame."""
    kept = _orders.get(key)
    if kept and kept[0] == column and kept[1] == descending and len(kept[2]) == len(frame):
        return kept[2]
    series = frame.iloc[:, column].reset_index(drop=True)
    try:
        order = series.sort_values(ascending=not descending, kind="stable", na_position="last")
    except TypeError:  # mixed types that do not compare: by their text, missing values last
        text = series.astype(str).where(series.notna())
        order = text.sort_values(ascending=not descending, kind="stable", na_position="last")
    positions = order.index.to_numpy()
    _orders[key] = (column, descending, positions)
    return positions


def page(key, offset, limit, column=None, descending=False):
    """Prints one page of a kept frame as JSON (one line)."""
    frame = _frames.get(key)
    if frame is None:
        print(json.dumps({"error": "gone"}))
        return
    rows = int(frame.shape[0])
    offset = max(0, min(int(offset), rows))
    limit = max(1, min(int(limit), MAX_PAGE_ROWS))
    if column is None:
        part = frame.iloc[offset : offset + limit]
    else:
        column = int(column)
        if not 0 <= column < frame.shape[1]:
            print(json.dumps({"error": "column", "columns": int(frame.shape[1])}))
            return
        part = frame.iloc[_positions(key, frame, column, bool(descending))[offset : offset + limit]]
    print(
        json.dumps(
            {
                "rows": rows,
                "offset": offset,
                "columns": [str(c) for c in frame.columns],
                "index": [_cell(i) for i in part.index],
                "data": [[_cell(v) for v in row] for row in part.itertuples(index=False, name=None)],
            },
            allow_nan=False,
        )
    )

