"""The config and kernel tables of an analysis from the library's columns (rt_api_analysis_table):
the rows of `analyze --format csv` as arrays, without writing and parsing the CSV text.

Numbers are copied once out of the library's arrays (into numpy arrays where numpy is there, it
comes with pandas), text columns split from their buffer of NUL-terminated strings; then the
library's table is freed. Types: text is str, rank and the 0/1 flags int, invocations int when
every value is whole (as the CSV prints them), every other number float (NaN where the CSV's field
is empty, inf where it prints inf); the tag.<key> columns str, NaN where the row has no such tag.
"""
import array
import ctypes

from . import _lib
from ._lib import fail, lib

try:
    import numpy as _np
except ImportError:  # lists of dicts without numpy
    _np = None


def _numbers(col, n):
    """A numeric column's values, copied: a numpy array, else an array.array."""
    code = "q" if col.type == _lib.INT else "d"
    if _np is not None:
        out = _np.empty(n, dtype=_np.int64 if code == "q" else _np.float64)
        if n:
            ctypes.memmove(out.ctypes.data, col.data, col.size)
        if col.type == _lib.COUNT and n and _np.all(_np.isfinite(out)) and \
                _np.array_equal(out, _np.floor(out)) and _np.all(_np.abs(out) < 2.0 ** 53):
            out = out.astype(_np.int64)
        return out
    out = array.array(code)
    out.frombytes(ctypes.string_at(col.data, col.size) if n else b"")
    vals = out.tolist()
    if col.type == _lib.COUNT and all(v == v and abs(v) < 2.0 ** 53 and v == int(v)
                                      for v in vals):
        vals = [int(v) for v in vals]
    return vals


def _texts(col, n):
    """A text column's strings: n NUL-terminated strings one after another."""
    raw = ctypes.string_at(col.data, col.size) if n else b""
    return raw.decode("utf-8", "replace").split("\0")[:n]


def _maybe_texts(col, n):
    """An optional text column's values: n flags (1: a value), then n NUL-terminated strings;
    NaN where a row has none (as pandas reads an empty CSV field)."""
    raw = ctypes.string_at(col.data, col.size) if n else b""
    texts = raw[n:].decode("utf-8", "replace").split("\0")[:n]
    nan = float("nan")
    return [s if f else nan for f, s in zip(raw[:n], texts)]


def table(handle, kind):
    """The rows of kind ("kernel" or "config") of an analysis as [(name, values)] in the CSV's
    column order (the library's table is freed)."""
    t = lib.rt_api_analysis_table(handle, kind.encode())
    if not t:
        raise fail()
    try:
        n = t.contents.n_rows
        cols = []
        for j in range(t.contents.n_columns):
            c = t.contents.columns[j]
            if c.type == _lib.TEXT:
                vals = _texts(c, n)
            elif c.type == _lib.OPT_TEXT:
                vals = _maybe_texts(c, n)
            else:
                vals = _numbers(c, n)
            cols.append((c.name.decode("utf-8", "replace"), vals))
        return cols
    finally:
        lib.rt_api_table_free(t)


def frame(cols, pd):
    """A pandas DataFrame of the columns."""
    data = {}
    for name, vals in cols:
        if isinstance(vals, list):  # text (NaN where none): object columns, as pandas reads text
            a = _np.empty(len(vals), dtype=object)
            a[:] = vals
            vals = a
        data[name] = vals
    return pd.DataFrame(data, columns=[name for name, _ in cols], copy=False)


def records(cols):
    """A list of dicts, one per row (without pandas)."""
    names = [name for name, _ in cols]
    vals = [v.tolist() if hasattr(v, "tolist") else list(v) for _, v in cols]
    return [dict(zip(names, row)) for row in zip(*vals)]
