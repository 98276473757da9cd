"""librooftime.so through ctypes: the one place that knows the C API (include/rooftime/api/api.h).

The library is a ctypes.CDLL, so every call into it releases the GIL for its duration (ctypes does
so for CDLL functions, never for PyDLL ones): other Python threads run while rooftime imports,
analyzes or draws.
"""
import ctypes
import numbers
import os

API_VERSION = 6

_HERE = os.path.dirname(os.path.abspath(__file__))


class Error(Exception):
    """A rooftime call failed; the message is the C library's (file, line and field where known)."""


def _find():
    """The package's own copy (installed by `pip install ./python`), else $ROOFTIME_LIB (the
    tests, run against a build tree)."""
    env = os.environ.get("ROOFTIME_LIB")
    if env:
        return env
    own = os.path.join(_HERE, "_lib", "librooftime.so")
    if os.path.isfile(own):
        return own
    raise ImportError("rooftime: no librooftime.so in %s: install the package with "
                      "`pip install ./python` from a built checkout (README, Python)" % own)


class _Str(ctypes.c_char_p):
    pass


def _load():
    lib = ctypes.CDLL(_find())
    c = ctypes
    vp, cp, sz, i, d = c.c_void_p, c.c_char_p, c.c_size_t, c.c_int, c.c_double
    sigs = {
        "rt_api_version": (i, []),
        "rt_api_error": (cp, []),
        "rt_api_warnings": (cp, []),
        "rt_api_free": (None, [vp]),
        "rt_api_set_datadir": (i, [cp]),
        "rt_api_datadir": (cp, []),
        "rt_api_machine_load": (vp, [cp]),
        "rt_api_machine_measure": (vp, [i]),
        "rt_api_machine_measure_opts": (vp, [i, cp, cp]),
        "rt_api_machine_json": (vp, [vp]),
        "rt_api_machine_save": (i, [vp, cp]),
        "rt_api_machine_name": (cp, [vp]),
        "rt_api_machine_free": (None, [vp]),
        "rt_api_profile_load": (vp, [cp]),
        "rt_api_import": (vp, [cp, c.POINTER(cp), sz, cp, cp]),
        "rt_api_import_opts": (vp, [cp, c.POINTER(cp), sz, c.POINTER(Option), sz]),
        "rt_api_import_options": (cp, [cp]),
        "rt_api_profile_torch_trace": (vp, [cp, d, cp]),
        "rt_api_profile_json": (vp, [vp]),
        "rt_api_profile_save": (i, [vp, cp]),
        "rt_api_profile_kernels": (sz, [vp]),
        "rt_api_kernel_name_key": (vp, [cp]),
        "rt_api_profile_free": (None, [vp]),
        "rt_api_analyze": (vp, [vp, c.POINTER(vp), sz, cp, cp, cp, cp, cp]),
        "rt_api_analysis_text": (vp, [vp, cp, sz]),
        "rt_api_analysis_table": (c.POINTER(Table), [vp, cp]),
        "rt_api_table_free": (None, [c.POINTER(Table)]),
        "rt_api_analysis_svg": (vp, [vp, c.POINTER(PlotOpts)]),
        "rt_api_analysis_plot": (i, [vp, c.POINTER(PlotOpts), cp]),
        "rt_api_analysis_report": (i, [vp, c.POINTER(ReportOpts), cp]),
        "rt_api_analysis_free": (None, [vp]),
        "rt_api_diff": (vp, [vp, vp, vp, cp, cp, cp, cp, sz, cp]),
        "rt_api_mean_profile": (vp, [c.POINTER(vp), sz]),
        "rt_api_gate": (vp, [c.POINTER(vp), sz, c.POINTER(vp), sz, vp, cp, cp, cp, cp, sz,
                             c.POINTER(GateOpts), cp, c.POINTER(i)]),
        "rt_api_across_new": (vp, [c.POINTER(cp), sz, d, sz]),
        "rt_api_across_text": (vp, [vp, cp, sz]),
        "rt_api_across_chart": (i, [vp, vp, cp]),
        "rt_api_across_free": (None, [vp]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    if lib.rt_api_version() != API_VERSION:
        raise ImportError("rooftime: %s has API version %d, this package wants %d: reinstall "
                          "the package from the same checkout" % (_find(), lib.rt_api_version(),
                                                                  API_VERSION))
    data = os.path.join(_HERE, "data")
    if os.path.isdir(data):
        lib.rt_api_set_datadir(data.encode())
    return lib


class Option(ctypes.Structure):
    """One option of `rooftime import KIND`: its long name and its value (NULL: a flag)."""
    _fields_ = [("name", ctypes.c_char_p), ("value", ctypes.c_char_p)]


class Column(ctypes.Structure):
    """One column of a table (rt_api_column): its name, type (TEXT, INT, REAL, COUNT, OPT_TEXT)
    and data."""
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int), ("data", ctypes.c_void_p),
                ("size", ctypes.c_size_t)]


TEXT, INT, REAL, COUNT, OPT_TEXT = 0, 1, 2, 3, 4  # rt_api_column's types


class Table(ctypes.Structure):
    """The config or kernel rows of `analyze --format csv` as columns (rt_api_table)."""
    _fields_ = [("n_rows", ctypes.c_size_t), ("n_columns", ctypes.c_size_t),
                ("columns", ctypes.POINTER(Column))]


class GateOpts(ctypes.Structure):
    """The options of `diff --gate` (rt_api_gate_opts): fractions, launches per step, flags."""
    _fields_ = [("threshold", ctypes.c_double), ("min_share", ctypes.c_double),
                ("launches", ctypes.c_double), ("strict", ctypes.c_int),
                ("other_machine", ctypes.c_int), ("suspect_machine", ctypes.c_int),
                ("junit", ctypes.c_char_p), ("summary", ctypes.c_char_p)]


class PlotOpts(ctypes.Structure):
    _fields_ = [("view", ctypes.c_char_p), ("points", ctypes.c_char_p),
                ("title", ctypes.c_char_p), ("series_by", ctypes.c_char_p),
                ("marker_by", ctypes.c_char_p), ("fill_by", ctypes.c_char_p),
                ("family", ctypes.c_char_p), ("where", ctypes.c_char_p),
                ("width", ctypes.c_double), ("height", ctypes.c_double),
                ("labels", ctypes.c_size_t), ("all_roofs", ctypes.c_int)]


class ReportOpts(ctypes.Structure):
    _fields_ = [("title", ctypes.c_char_p), ("split_by", ctypes.c_char_p),
                ("series_by", ctypes.c_char_p), ("marker_by", ctypes.c_char_p),
                ("fill_by", ctypes.c_char_p), ("points", ctypes.c_char_p),
                ("all_roofs", ctypes.c_int)]


lib = _load()


def b(s):
    """A str, bytes, path or number argument as C bytes; None stays NULL. Anything else (a file
    object, a list) is a TypeError, and a NUL inside a ValueError as open() raises: C would read
    the string only up to it (another file, another value), silently."""
    if s is None:
        return None
    if isinstance(s, (str, bytes, os.PathLike)):
        out = os.fsencode(s)
    elif isinstance(s, numbers.Real):
        out = str(s).encode()
    else:
        raise TypeError("rooftime: expected a str, bytes, os.PathLike or number, not %s (%r)"
                        % (type(s).__name__, s))
    if b"\0" in out:
        raise ValueError("rooftime: embedded null byte in %r" % (s,))
    return out


def fail():
    """The Error of the call that just failed, with the library's message."""
    msg = lib.rt_api_error()
    return Error(msg.decode("utf-8", "replace") if msg else "rooftime: unknown error")


def warnings_text():
    w = lib.rt_api_warnings()
    return [x for x in (w.decode("utf-8", "replace") if w else "").split("\n") if x]


def take_bytes(ptr):
    """A heap string the library returned, as bytes (freed); Error when NULL."""
    if not ptr:
        raise fail()
    try:
        return ctypes.string_at(ptr)
    finally:
        lib.rt_api_free(ptr)


def take(ptr):
    """A heap string the library returned, as str (freed); Error when NULL."""
    return take_bytes(ptr).decode("utf-8", "replace")
