"""`with rooftime.gpu.profile() as prof:` collects the CUDA kernels of a block of code in this
process with rooftime's CUPTI collector (librooftime-cupti.so), as `rooftime profile --gpu` collects
a command's: the collector attaches in-process (rooftime_cupti_attach, the same start as the
injection), prof.mark(**tags) tags the kernels launched after it (rooftime_cupti_mark), and on exit
the collector detaches and its directory is imported as `rooftime import cupti` imports it (the C
library's rt_api_import). Then prof.profile is a rooftime.Profile and prof.analyze(machine) its
verdicts. Without a driver or a device, entering raises rooftime.Error with the collector's line.
"""
import ctypes
import os
import re
import shutil
import sys
import tempfile

from . import core
from ._block import ProfiledBlock
from ._lib import Error, b, fail, lib, take

_COLLECTOR = []
_KEY = re.compile(r"[A-Za-z0-9_.-]+\Z")


def _collector():
    """librooftime-cupti.so, found as `profile --gpu` finds it ($ROOFTIME_CUPTI_LIB, else beside
    librooftime.so); under the injection, dlopen of the same path gives the copy already loaded."""
    if not _COLLECTOR:
        for name in ("rt_api_cupti_lib", "rt_api_cupti_metrics"):
            f = getattr(lib, name, None)
            if f is None:
                raise Error("rooftime.gpu: this librooftime.so has no %s: reinstall the package "
                            "from the same checkout" % name)
            f.restype, f.argtypes = ctypes.c_void_p, []
        path = take(lib.rt_api_cupti_lib())
        try:
            c = ctypes.CDLL(path)
        except OSError as e:  # e.g. CUPTI's libcupti.so missing: one line, no crash
            raise Error("rooftime.gpu: cannot load %s: %s" % (path, e)) from None
        sz, cp, i = ctypes.c_size_t, ctypes.c_char_p, ctypes.c_int
        for name, args in (("rooftime_cupti_attach", [cp, cp, cp, sz]),
                           ("rooftime_cupti_detach", [cp, sz]), ("rooftime_cupti_mark", [cp])):
            f = getattr(c, name, None)
            if f is None:
                raise Error("rooftime.gpu: %s has no %s (an older collector? rebuild rooftime)"
                            % (path, name))
            f.restype, f.argtypes = i, args
        _COLLECTOR.append(c)
    return _COLLECTOR[0]


def _tags(tags):
    """key=value;key=value from keyword tags, within the collector's rules (cupti.h)."""
    if len(tags) > 32:
        raise Error("rooftime.gpu.profile.mark: %d tags, at most 32" % len(tags))
    pairs = []
    for k, v in tags.items():
        v = str(v)
        if not _KEY.match(k):
            raise Error("rooftime.gpu.profile.mark: tag name %r: letters, digits, '_', '.' and '-'"
                        % k)
        if ";" in v or "\n" in v or "\r" in v or "\0" in v:
            raise Error("rooftime.gpu.profile.mark: tag %s: the value %r holds ';', a line "
                        "break or a NUL" % (k, v))
        pairs.append("%s=%s" % (k, v))
    text = ";".join(pairs)
    if len(text.encode()) > 4096:
        raise Error("rooftime.gpu.profile.mark: tags longer than 4096 bytes")
    return text


class profile(ProfiledBlock):
    """Collect the CUDA kernels a block of code launches in this process.

    counters: also the counters of each kernel (FLOPs and bytes; kernels replayed, so slower), with
    the metrics `profile --gpu --counters` collects on this machine's GPUs; without, a trace
    (times only). keep_dir: the collector's directory (created if missing) is kept there;
    default a scratch directory removed after the import.
    """

    _what = "rooftime.gpu.profile"

    def __init__(self, counters=False, keep_dir=None):
        self.counters = bool(counters)
        self.keep_dir = os.fspath(keep_dir) if keep_dir is not None else None
        self.profile = None
        self._dir = None

    def __enter__(self):
        if self._dir is not None:
            raise Error("rooftime.gpu.profile: already running")
        c = _collector()
        scratch = self.keep_dir is None
        d = tempfile.mkdtemp(prefix="rooftime-cupti-") if scratch else self.keep_dir
        env_set, metrics_err = False, None
        if self.counters and not os.environ.get("ROOFTIME_CUPTI_METRICS"):
            m = lib.rt_api_cupti_metrics()
            if m:
                os.environ["ROOFTIME_CUPTI_METRICS"] = take(m)
                env_set = True
            else:
                metrics_err = fail()  # no driver: the collector's own line comes first
        err = ctypes.create_string_buffer(1024)
        try:
            rc = c.rooftime_cupti_attach(b(d), b"counters" if self.counters else b"trace", err,
                                         len(err))
        finally:
            if env_set:
                del os.environ["ROOFTIME_CUPTI_METRICS"]
        if rc != 0:
            if scratch:
                shutil.rmtree(d, ignore_errors=True)
            msg = err.value.decode("utf-8", "replace") or "rooftime_cupti_attach failed"
            if metrics_err is not None and "without metrics" in msg:
                raise metrics_err
            raise Error(msg)
        self._dir, self._scratch, self.profile = d, scratch, None
        return self

    def mark(self, tags=None, **more):
        """Tag the kernels launched from now on (until the next mark) with these tags (a dict,
        for names such as "pass", and keywords): each becomes a tag of theirs in the profile, and a
        kernel under different tags a kernel of its own. mark() with no tags ends the tagging."""
        text = _tags(dict(tags or {}, **more))
        if self._dir is None:
            raise Error("rooftime.gpu.profile.mark: not collecting (use it inside the with block)")
        if _collector().rooftime_cupti_mark(text.encode()) != 0:
            raise Error("rooftime.gpu.profile.mark: the collector is not collecting")

    def __exit__(self, exc_type, exc, tb):
        d, self._dir = self._dir, None
        err = ctypes.create_string_buffer(1024)
        try:
            if _collector().rooftime_cupti_detach(err, len(err)) != 0:
                raise Error("rooftime.gpu.profile: %s" % err.value.decode("utf-8", "replace"))
            self.profile = core.import_cupti(d)
        except Exception:
            if exc_type is None:
                raise  # the block's own exception wins over ours
            print("rooftime.gpu.profile: no profile: %s" % (sys.exc_info()[1],), file=sys.stderr)
        finally:
            if self._scratch:
                shutil.rmtree(d, ignore_errors=True)
        return False
