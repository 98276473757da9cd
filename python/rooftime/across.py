"""rooftime.across(paths, by="rank"): one job's ranks, as `rooftime analyze --across rank`."""
import ctypes
import json
import os

from . import core
from ._lib import Error, b, fail, lib, take
from ._pandas import pd as _pd


def _expand(paths):
    """Files as given, directories as their *.json files in name order (as the command)."""
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = []
    for p in map(os.fsdecode, paths):
        if not os.path.isdir(p):
            out.append(p)
            continue
        js = sorted((f for f in os.listdir(p) if f.endswith(".json") and len(f) > 5
                     and not f.startswith(".")), key=os.fsencode)
        if not js:
            raise Error("'%s' holds no .json profile" % p)
        out.extend(os.path.join(p, f) for f in js)
    return out


class Across:
    """Per kernel and config over ranks: median, quartiles, min, max, slowest ranks, stragglers."""

    def __init__(self, handle, paths):
        self._h = handle
        self.paths = paths
        self._json = None

    def __del__(self):
        if getattr(self, "_h", None):
            lib.rt_api_across_free(self._h)
            self._h = None

    def text(self, top=20):
        """`analyze --across rank` (text, --top)."""
        return take(lib.rt_api_across_text(self._h, b"text", core._top(top)))

    def to_dict(self):
        """`analyze --across rank --format json`."""
        if self._json is None:
            self._json = take(lib.rt_api_across_text(self._h, b"json", 0))
        return json.loads(self._json)

    def _table(self, key):
        rows = self.to_dict().get(key, [])
        return _pd.DataFrame(rows) if _pd is not None else rows

    @property
    def kernels(self):
        return self._table("kernels")

    @property
    def configs(self):
        return self._table("configs")

    @property
    def stragglers(self):
        return self._table("stragglers")

    def chart(self, path, machine=None):
        """`--chart FILE`: a box per config in the time-based roofline (.svg, .png, .pdf)."""
        m = None
        if machine is not None:
            m = machine if isinstance(machine, core.Machine) else core.machine(machine)
        if lib.rt_api_across_chart(self._h, m._h if m else None, b(path)) != 0:
            raise fail()
        return os.fspath(path)

    def __repr__(self):
        return "<rooftime.Across %d profiles>" % len(self.paths)


def across(paths, by="rank", straggler=None, slowest=None):
    """The profiles of one job's ranks (files, or directories of *.json), folded one at a time."""
    if by != "rank":
        raise Error("across takes by='rank', not %r" % (by,))
    ps = _expand(paths)
    arr = (ctypes.c_char_p * max(len(ps), 1))(*[b(p) for p in ps])
    h = lib.rt_api_across_new(arr, len(ps), float(straggler or 0), int(slowest or 0))
    if not h:
        raise fail()
    return Across(h, ps)
