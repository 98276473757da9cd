"""`rooftime.diff(before, after).gate(...)`: the regression gate of `rooftime diff --gate`, judged
by the C library (rt_api_gate); here only its arguments and its rows as a DataFrame."""
import csv
import ctypes
import io
import numbers

from . import _lib
from ._lib import Error, b, lib, take
from ._pandas import pd as _pd


class GateRefused(Error):
    """The gate did not judge: runs of two machines, or a machine file `machine check` fails
    (allow_other_machine, allow_suspect_machine judge them anyway)."""


class GateRows(list):
    """The failing rows as dicts (without pandas), with .attrs as a DataFrame's."""

    def __init__(self, rows, attrs):
        super().__init__(rows)
        self.attrs = attrs


def _number(name, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or not lo <= v <= hi:
        raise Error("gate: %s takes a number from %g to %g, not %r" % (name, lo, hi, v))
    return float(v)


def _flag(name, v):
    if not isinstance(v, bool):
        raise TypeError("gate: %s takes True or False, not %r" % (name, v))
    return 1 if v else 0


def gate(d, threshold, min_share, launches, strict, other, suspect, junit, summary):
    if d._runs is None:
        raise Error("gate: this Diff was not made by rooftime.diff()")
    t = _number("threshold", threshold, 1e-9, 1000)
    share = _number("min_share", min_share, 0, 100)
    n = _number("launches", launches, 0, 1e15)
    o = _lib.GateOpts(t / 100, share / 100, n, _flag("strict", strict),
                      _flag("allow_other_machine", other), _flag("allow_suspect_machine", suspect),
                      b(junit), b(summary))
    m, mode, tau, reference, by, top = d._args
    sides = [(ctypes.c_void_p * len(r))(*[p._h for p in r]) for r in d._runs]
    out = {}
    status = ctypes.c_int(-1)
    for fmt in ("text", "csv"):
        ptr = lib.rt_api_gate(sides[0], len(d._runs[0]), sides[1], len(d._runs[1]),
                              m._h if m else None, b(mode), b(tau), b(reference), b(by), top,
                              ctypes.byref(o), b(fmt), ctypes.byref(status))
        out[fmt] = take(ptr)
        o.junit = o.summary = None  # written once
    if status.value == 2:
        line = [l for l in out["text"].splitlines() if l.startswith("gate: refused: ")]
        raise GateRefused(line[0][len("gate: "):] if line else out["text"])
    attrs = {"text": out["text"], "passed": status.value == 0}
    rows = [r for r in csv.DictReader(io.StringIO(out["csv"])) if r["state"] == "FAIL"]
    if _pd is None:
        return GateRows(rows, attrs)
    head = next(csv.reader(io.StringIO(out["csv"])))
    df = _pd.DataFrame(rows, columns=head)
    for c in ("before", "after", "ratio", "margin"):
        df[c] = _pd.to_numeric(df[c])
    df.attrs.update(attrs)
    return df
