"""Machines, profiles, analyses and charts: Python objects over the C library's handles.

No model, importer or chart is written here: every figure comes from librooftime (the tables are
the columns of `analyze --format csv`, _columns.py; the charts the SVG of `plot`).
"""
import csv
import ctypes
import io
import json
import numbers
import os
import sys
import threading
import warnings

from . import _columns, _gate, _lib
from ._lib import Error, b, fail, lib, take
from ._pandas import pd as _pd


_PKG = os.path.dirname(os.path.abspath(__file__)) + os.sep


_SHOWN = 10  # warnings shown per call, as the command shows them


def _warn(what, ws=None, more=None):
    """A call's warnings (the last call's when ws is None), as Python warnings pointing at the
    user's line. With more (where they are all listed): the first ten, then how many more."""
    ws = _lib.warnings_text() if ws is None else ws
    if not ws:
        return
    level, f = 2, sys._getframe(1)  # 1 is this function, 2 its caller
    while f is not None and f.f_code.co_filename.startswith(_PKG):
        level, f = level + 1, f.f_back
    shown = ws if more is None else ws[:_SHOWN]
    for w in shown:
        warnings.warn("rooftime: %s: %s" % (what, w), stacklevel=level)
    if len(ws) > len(shown):
        warnings.warn("rooftime: %s: %d more warnings not shown (%s lists them all)"
                      % (what, len(ws) - len(shown), more), stacklevel=level)


def _top(top):
    """--top's value: a whole number >= 0 (0: every row, as --top 0), checked as the command checks
    it; ctypes would raise its ArgumentError for None and wrap -1 into every row."""
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 0:
        raise Error("top takes a whole number >= 0 (0: every row), not %r" % (top,))
    return int(top)


class Machine:
    """A machine's ceilings: a preset, a file, or this machine measured."""

    def __init__(self, handle, origin):
        self._h = handle
        self.origin = origin

    def __del__(self):
        if getattr(self, "_h", None):
            lib.rt_api_machine_free(self._h)
            self._h = None

    @property
    def name(self):
        return lib.rt_api_machine_name(self._h).decode("utf-8", "replace")

    def to_json(self):
        """The machine file's JSON text (docs/machine-format.md)."""
        return take(lib.rt_api_machine_json(self._h))

    def to_dict(self):
        return json.loads(self.to_json())

    def save(self, path):
        if lib.rt_api_machine_save(self._h, b(path)) != 0:
            raise fail()

    def __repr__(self):
        return "<rooftime.Machine %r from %s>" % (self.name, self.origin)


def machine(name_or_path):
    """A machine preset by name ("v100", "a100", "h100-sxm", "h200", "b200", "gb200",
    "rtx-pro-6000", "mi250", "mi250x", "mi300x") or a machine file."""
    h = lib.rt_api_machine_load(b(name_or_path))
    if not h:
        raise fail()
    return Machine(h, os.fsdecode(name_or_path) if isinstance(name_or_path, (str, bytes, os.PathLike))
                   else str(name_or_path))


def load_machine(path):
    """A machine file (as `rooftime machine measure -o FILE` writes it)."""
    return machine(os.fspath(path))


def machine_measure(quick=True, threads=None, max_isa=None):
    """Measure this machine's CPU ceilings as `rooftime machine measure [--quick] [--threads N]
    [--max-isa ISA]` does (threads None: all cores; max_isa "sse", "avx2", "avx512" or "amx")."""
    h = lib.rt_api_machine_measure_opts(1 if quick else 0, b(threads), b(max_isa))
    _warn("machine measure")
    if not h:
        raise fail()
    return Machine(h, "measured")


class Profile:
    """A rooftime profile (docs/profile-format.md): kernels with time, FLOPs and bytes."""

    def __init__(self, handle, origin, inputs=()):
        self._h = handle
        self.origin = origin
        self._inputs = list(inputs)  # an importer's input files, which save() must not replace

    def __del__(self):
        if getattr(self, "_h", None):
            lib.rt_api_profile_free(self._h)
            self._h = None

    def __len__(self):
        return lib.rt_api_profile_kernels(self._h)

    def to_json(self):
        return take(lib.rt_api_profile_json(self._h))

    def to_dict(self):
        return json.loads(self.to_json())

    def save(self, path):
        """Write the profile file (loads back with load_profile and every command). Never over
        the file it was imported from, as `rooftime import ... -o` refuses its input."""
        c = b(path)
        for f in self._inputs:
            try:
                same = os.path.samefile(os.fsdecode(c), f)
            except OSError:  # either is missing: nothing to overwrite
                same = False
            if same:
                raise Error("%s: the profile's input (%s): it would be overwritten"
                            % (os.fsdecode(c), self.origin))
        if lib.rt_api_profile_save(self._h, c) != 0:
            raise fail()

    def analyze(self, machine, **kw):
        return analyze([self], machine, **kw)

    def __repr__(self):
        return "<rooftime.Profile %d kernels from %s>" % (len(self), self.origin)


def load_profile(path):
    """A rooftime profile file."""
    h = lib.rt_api_profile_load(b(path))
    if not h:
        raise fail()
    return Profile(h, os.fsdecode(path))


def kernel_name_key(name):
    """The key a kernel's name shares with its other printings: the CUPTI collector's (libstdc++'s
    __cxa_demangle), Nsight Compute's own shortened one (namespaces dropped, parameters as T2, T13)
    and the mangled name; the library's (core/kernel-name-key.c), for matching kernels of one run
    across tools. Kernels that differ only in their parameter types share a key: compare whole
    names first."""
    return take(lib.rt_api_kernel_name_key(b(name)))


def _paths(paths):
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    return [os.fsdecode(p) for p in paths]


_IMPORT_OPTIONS = {}


def _import_options(kind):
    """The options `rooftime import KIND` takes, from the library: {name: "flag", "value" or
    "list"}, with the command's long names ("per-launch")."""
    if kind not in _IMPORT_OPTIONS:
        spec = lib.rt_api_import_options(b(kind))
        if spec is None:
            raise fail()
        opts = {}
        for line in spec.decode().splitlines():
            name, eq, rep = line.partition("=")
            opts[name] = "list" if rep == "*" else "value" if eq else "flag"
        _IMPORT_OPTIONS[kind] = opts
    return _IMPORT_OPTIONS[kind]


def _option_values(kind, key, how, v):
    """A keyword's value as the command line's arguments (C strings; None for a flag)."""
    if how == "flag":
        if v is True:
            return [None]
        if v is False or v is None:
            return []
        raise TypeError("import_%s: %s takes True or False, not %r" % (kind, key, v))
    if v is None:
        return []
    if how == "list":
        if isinstance(v, dict):  # tag={"run": "a"}, map={"time": "CUDA Time"}
            v = ["%s=%s" % kv for kv in v.items()]
        elif isinstance(v, (str, bytes, os.PathLike)) or not hasattr(v, "__iter__"):
            v = [v]
        return [b(x) for x in v]
    if isinstance(v, (list, tuple, dict, set)):
        raise TypeError("import_%s: %s takes one value, not %r" % (kind, key, v))
    return [b(v)]


def _import(kind, paths, **options):
    """`rooftime import KIND PATHS --OPTION VALUE...`: keywords are the command's long options
    with '_' for '-' (per_launch=True, tensor_factor=512, tag={"run": "a"}); the library checks
    the values as the command does. A keyword the importer does not take: TypeError."""
    known = _import_options(kind)
    opts = []
    for key, v in options.items():
        name = key.replace("_", "-")
        if name not in known:
            raise TypeError("import_%s() got an unexpected keyword argument %r (it takes %s)"
                            % (kind, key, ", ".join(n.replace("-", "_") for n in known)))
        opts += [(b(name), x) for x in _option_values(kind, key, known[name], v)]
    ps = _paths(paths)
    arr = (ctypes.c_char_p * max(len(ps), 1))(*[b(p) for p in ps])
    oarr = (_lib.Option * max(len(opts), 1))(*[_lib.Option(n, v) for n, v in opts])
    h = lib.rt_api_import_opts(b(kind), arr, len(ps), oarr, len(opts))
    _warn("import " + kind)
    if not h:
        raise fail()
    return Profile(h, "%s %s" % (kind, ", ".join(ps)), ps)


def import_kind(kind, paths, **options):
    """Any importer of `rooftime import KIND` by its name ("ncu", "table", ...): the same as
    import_KIND(paths, **options), for an importer without a function of its own here."""
    return _import(kind, paths, **options)


def import_ncu(paths, **options):
    """Nsight Compute `ncu --csv` outputs (one or several metric sets of the same run), as
    `rooftime import ncu`; options: metrics (a file), tensor_factor, arch ("sm_80"),
    recipe ("nsight", the default, or "paper": the seed authors' half-precision FLOPs),
    allow_missing, per_launch, tag ({key: value} or ["key=value"])."""
    return _import("ncu", paths, **options)


def import_table(path, **options):
    """A table of kernels (the paper's layout or others), as `rooftime import table`; options:
    ai_file, map ({quantity: column} or ["quantity=column"]), no_defaults, name_column (a column
    or a list), time ("device" or "wall"), tag."""
    return _import("table", path, **options)


def import_torch(path, **options):
    """A PyTorch profiler trace (chrome JSON, gzip-compressed or not) with the cost model, as
    `rooftime import torch` (a GPU run's trace gives its device profile); options: within (a
    record_function range), conv_flops ("taps" or "window"), ops (a cost model file),
    no_cost_model, host (a GPU trace's host operators instead), threads (what ran the kernels:
    where their bytes fit), tag."""
    return _import("torch", path, **options)


def import_onednn(path, **options):
    """A oneDNN verbose log, as `rooftime import onednn`; options: conv_flops, threads, tag."""
    return _import("onednn", path, **options)


def import_cupti(directory, **options):
    """The CUPTI collector's output directory, as `rooftime import cupti`; options: reevaluate,
    per_launch, metrics, tag."""
    return _import("cupti", directory, **options)


class Analysis:
    """The verdicts of `rooftime analyze`: .kernels, .configs and .findings as pandas DataFrames
    (lists of dicts without pandas), .plot() and .report()."""

    def __init__(self, handle, profiles, machine, mode):
        self._h = handle
        self._keep = (list(profiles), machine)  # the C analysis reads the profiles
        self.mode = mode
        self._csv = None
        self._cols = {}  # kind -> its columns from the library, read once
        # the C analysis computes each mode's tables on first use: one call at a time on it
        self._lock = threading.Lock()
        self._warnings = []

    def _call(self, fn, *args):
        """fn(handle, *args) on the C analysis, one call at a time. The analyses it computes on
        first use (one per mode) warn as `rooftime analyze` does: each new message once, the first
        ten of a call as Python warnings, all of them in .warnings."""
        with self._lock:
            r = fn(self._h, *args)
            new = [w for w in _lib.warnings_text() if w not in self._warnings]
            self._warnings += new
        _warn("analyze", new, "Analysis.warnings")
        return r

    @property
    def warnings(self):
        """Every warning of the analyses computed so far (a kernel whose unit or level the
        machine lacks, a time of zero ...), as `analyze --format json` lists them."""
        return list(self._warnings)

    def __del__(self):
        if getattr(self, "_h", None):
            lib.rt_api_analysis_free(self._h)
            self._h = None

    def text(self, format="text", top=20):
        """The output of `analyze --format FORMAT` (text, csv or json) as a string; "head": the
        JSON's schema, mode, machine and totals alone."""
        return take(self._call(lib.rt_api_analysis_text, b(format), _top(top)))

    @property
    def csv(self):
        """`analyze --format csv` exactly (.kernels and .configs are its rows, without the text)."""
        if self._csv is None:
            self._csv = self.text("csv")
        return self._csv

    def to_dict(self):
        """`analyze --format json` as a dict."""
        return json.loads(self.text("json"))

    def _frame(self, kind):
        """The rows of kind from the library's columns (not the CSV text): a DataFrame, or a
        list of dicts without pandas. A new frame on each call; the columns are read once."""
        if kind not in self._cols:
            self._cols[kind] = self._call(_columns.table, kind)
        if _pd is not None:
            return _columns.frame(self._cols[kind], _pd)
        return _columns.records(self._cols[kind])

    @property
    def kernels(self):
        """One row per kernel: the kernel rows of `analyze --format csv`."""
        return self._frame("kernel")

    @property
    def configs(self):
        """One row per config: the config rows of `analyze --format csv`."""
        return self._frame("config")

    @property
    def findings(self):
        """The summary and callouts the report opens with, one row per block: text its sentences
        (a list's items, one a line), rows a table's rows (the first its header)."""
        blocks = json.loads(self.text("findings", 0))
        for x in blocks:
            x["text"] = (x.get("lead") or "") + (x.get("text") or "")
            if x.get("kind") == "list" and not x["text"]:  # the summary's sentences
                x["text"] = "\n".join(" ".join(r) for r in x.get("rows") or [])
        if _pd is not None:
            return _pd.DataFrame(blocks, columns=["source", "section", "kind", "lead", "text",
                                                  "rows", "note"])
        return blocks

    def plot(self, view="4d", points="configs", **opts):
        """A chart of `rooftime plot --view VIEW --points POINTS`; opts: title, series_by,
        marker_by, fill_by, family, where (a "TAG=VALUE" or a list), width, height, labels,
        all_roofs. Shown inline by Jupyter; .save(path) writes .svg, .png or .pdf."""
        return Chart(self, view, points, opts)

    def report(self, directory, title=None, split_by=None, series_by=None, marker_by=None,
               fill_by=None, points=None, all_roofs=False):
        """DIR/report.html and its charts, as `rooftime report -o DIR`; returns the page's path."""
        if isinstance(split_by, (list, tuple)):
            split_by = ",".join(split_by)
        o = _lib.ReportOpts(b(title), b(split_by), b(series_by), b(marker_by), b(fill_by),
                            b(points), 1 if all_roofs else 0)
        if self._call(lib.rt_api_analysis_report, ctypes.byref(o), b(directory)) != 0:
            raise fail()
        return os.path.join(os.fspath(directory), "report.html")

    def __repr__(self):
        # the JSON's head alone: to_dict() would write and parse every kernel (9 s at 100k)
        t = json.loads(self.text("head"))["totals"]
        return "<rooftime.Analysis %d kernels, %d configs, %.6g s>" % (t["kernels"], t["configs"],
                                                                       t["time"])


class Chart:
    """One view of an analysis; Jupyter shows it inline (_repr_svg_)."""

    _KEYS = ("title", "series_by", "marker_by", "fill_by", "family", "where", "width", "height",
             "labels", "all_roofs")

    def __init__(self, analysis, view, points, opts):
        bad = set(opts) - set(self._KEYS)
        if bad:
            raise TypeError("plot: unknown option(s) %s (%s)" % (", ".join(sorted(bad)),
                                                                 ", ".join(self._KEYS)))
        self._a = analysis
        self.view, self.points, self.opts = view, points, dict(opts)
        self._svg = None
        where = opts.get("where")
        if isinstance(where, (list, tuple)):
            where = "\n".join(where)
        self._o = _lib.PlotOpts(b(view), b(points), b(opts.get("title")), b(opts.get("series_by")),
                                b(opts.get("marker_by")), b(opts.get("fill_by")),
                                b(opts.get("family")), b(where), float(opts.get("width") or 0),
                                float(opts.get("height") or 0), int(opts.get("labels") or 0),
                                1 if opts.get("all_roofs") else 0)
        self.svg()  # a bad option fails here, not at display

    def svg(self):
        """The chart as SVG text."""
        if self._svg is None:
            self._svg = take(self._a._call(lib.rt_api_analysis_svg, ctypes.byref(self._o)))
        return self._svg

    def _repr_svg_(self):
        return self.svg()

    def save(self, path):
        """Write the chart: .svg, .png or .pdf by the extension (PNG and PDF need cairo)."""
        if self._a._call(lib.rt_api_analysis_plot, ctypes.byref(self._o), b(path)) != 0:
            raise fail()
        return os.fspath(path)

    def __repr__(self):
        return "<rooftime.Chart %s view, %s>" % (self.view, self.points)


def analyze(profiles, machine, mode=None, tau=None, reference=None, group_by=None, ignore=None):
    """The verdict per kernel and per config, as `rooftime analyze` gives it.

    profiles: a Profile, a path, or a list of them; machine: a Machine, a preset name or a file.
    mode: "hier" or "single"; None takes each output's default as the commands do (hier for the
    tables, the view's for plot, single for report). tau, reference, group_by, ignore: the options
    of the same names (lists or comma-separated strings)."""
    if isinstance(profiles, (Profile, str, bytes, os.PathLike)):
        profiles = [profiles]
    ps = [p if isinstance(p, Profile) else load_profile(p) for p in profiles]
    m = machine if isinstance(machine, Machine) else globals()["machine"](machine)
    if isinstance(group_by, (list, tuple)):
        group_by = ",".join(group_by)
    if isinstance(ignore, (list, tuple)):
        ignore = ",".join(ignore)
    arr = (ctypes.c_void_p * max(len(ps), 1))(*[p._h for p in ps])
    h = lib.rt_api_analyze(m._h, arr, len(ps), b(mode), b(tau), b(reference), b(group_by),
                           b(ignore))
    if not h:
        raise fail()
    return Analysis(h, ps, m, mode)


class Diff:
    """Two runs kernel by kernel, as `rooftime diff`: .text (the table for people), .csv and
    .rows (its CSV: every matched kernel, then the total, as a DataFrame or a list of dicts);
    .gate(...) judges AFTER against BEFORE as `rooftime diff --gate` (_gate.py)."""

    def __init__(self, text, csv_text, runs=None, args=None):
        self.text, self.csv = text, csv_text
        self._runs, self._args = runs, args  # each side's runs and diff's other arguments

    def gate(self, threshold=5, min_share=1, launches=0.5, strict=False,
             allow_other_machine=False, allow_suspect_machine=False, junit=None, summary=None):
        """`rooftime diff --gate`: the failing rows as a DataFrame (a list of dicts without
        pandas; empty when AFTER is not worse beyond noise) with the command's report in
        .attrs["text"] and the verdict in .attrs["passed"]; threshold and min_share in percent
        as the command takes them; junit and summary: files to write. Refused (runs of two
        machines, a suspect machine file): rooftime.GateRefused."""
        return _gate.gate(self, threshold, min_share, launches, strict, allow_other_machine,
                          allow_suspect_machine, junit, summary)

    @property
    def rows(self):
        if _pd is not None:
            # an empty number (a kernel only in one run) is NaN, an empty or "nan" name a string
            head = next(csv.reader(io.StringIO(self.csv)), [])
            nums = {c: ["", "nan"] for c in head if c != "kernel" and not c.startswith("verdict")}
            return _pd.read_csv(io.StringIO(self.csv), keep_default_na=False, na_values=nums)
        return list(csv.DictReader(io.StringIO(self.csv)))

    def __str__(self):
        return self.text

    def __repr__(self):
        return self.text


def _runs(side):
    """One side of a diff: a profile or a path, or a list of them (runs of one workload)."""
    if isinstance(side, (list, tuple)):
        if not side:
            raise Error("diff: a side's list of runs is empty")
        return [p if isinstance(p, Profile) else load_profile(p) for p in side]
    return [side if isinstance(side, Profile) else load_profile(side)]


def _mean(runs):
    """A side's runs as one profile: the run itself, or their mean (as `diff --gate`'s table)."""
    if len(runs) == 1:
        return runs[0]
    arr = (ctypes.c_void_p * len(runs))(*[p._h for p in runs])
    h = lib.rt_api_mean_profile(arr, len(runs))
    if not h:
        raise fail()
    return Profile(h, "the mean of %d runs" % len(runs))


def diff(before, after, machine=None, mode=None, tau=None, reference=None, by="name", top=30):
    """`rooftime diff BEFORE AFTER`: profiles (or paths), or lists of runs of one workload (the
    table shows each side's mean; .gate() measures the noise between them); machine (a Machine,
    preset or file) for the verdicts; mode (single by default), tau and reference as its options;
    by "name", "op" or a tag; top rows in the text table."""
    runs = (_runs(before), _runs(after))
    a, z = _mean(runs[0]), _mean(runs[1])
    m = None
    if machine is not None:
        m = machine if isinstance(machine, Machine) else globals()["machine"](machine)
    if isinstance(top, bool) or not isinstance(top, numbers.Integral) or top < 1:
        raise Error("diff: top takes a whole number >= 1, not %r" % (top,))
    out = []
    for fmt in (b"text", b"csv"):
        out.append(take(lib.rt_api_diff(a._h, z._h, m._h if m else None, b(mode), b(tau),
                                        b(reference), b(by), int(top), fmt)))
    return Diff(*out, runs=runs, args=(m, mode, tau, reference, by, int(top)))
