"""`with rooftime.torch.profile() as prof:` profiles PyTorch code in this process, as
`rooftime profile --torch` profiles a script: the same runner (data/torch/runner), the same
import with the cost model (FLOPs and bytes from shapes, the user's source lines), the block's wall
time and coverage. Then prof.profile is a rooftime.Profile and prof.analyze(machine) its verdicts.

`with rooftime.torch.phase("prefill"):` marks a phase of a generation loop (a range named
rooftime:phase=prefill in the trace): every operator that starts inside it is tagged phase=prefill,
in place of the phases the import finds from the attention operators' query length.
"""
import importlib.util
import os
import shutil
import sys
import tempfile
import time

from . import core
from ._block import ProfiledBlock
from ._lib import Error, fail, lib

_RUNNER = []


def _runner():
    if not _RUNNER:
        data = lib.rt_api_datadir().decode()
        path = os.path.join(data, "torch", "runner", "sitecustomize.py")
        if not os.path.isfile(path):
            raise Error("rooftime.torch: no runner at %s (data/torch/runner)" % path)
        spec = importlib.util.spec_from_file_location("rooftime_torch_runner", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _RUNNER.append((mod, os.path.join(data, "torch", "ops.json")))
    return _RUNNER[0]


def _steps(steps):
    """FIRST:LAST (a "1:3" string or a (1, 3) pair), 0 <= FIRST < LAST, as --steps."""
    if steps is None:
        return None
    try:
        if isinstance(steps, str):
            a, _, z = steps.partition(":")
            first, last = int(a), int(z)
        else:
            first, last = (int(x) for x in steps)
    except (TypeError, ValueError):
        first = last = -1
    if not (0 <= first < last <= 1000000):
        raise Error("steps takes FIRST:LAST with 0 <= FIRST < LAST (optimizer steps), not %r"
                    % (steps,))
    return first, last


def phase(name):
    """A context that marks a phase of a generation loop ("prefill", "decode", or any name of 1 to
    32 letters, digits, '_', '-', '.'): torch.autograd.profiler.record_function of
    "rooftime:phase=NAME", which the import of profile --torch and rooftime.torch.profile reads;
    outside a profiler it costs next to nothing."""
    import re

    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", name):
        raise Error("rooftime.torch.phase: a name of 1 to 32 letters, digits, '_', '-' or '.', "
                    "not %r" % (name,))
    from torch.autograd.profiler import record_function

    return record_function("rooftime:phase=" + name)


class profile(ProfiledBlock):
    """Profile the PyTorch operators of a block of code.

    steps: keep only optimizer steps FIRST+1 .. LAST (a "1:3" string or a pair), as --steps.
    command: the name the profile gives the run (default "python (in process)").
    keep_trace: also keep the runner's trace (chrome JSON) at this path.
    """

    _what = "rooftime.torch.profile"

    def __init__(self, steps=None, command=None, keep_trace=None):
        self.steps = _steps(steps)
        self.command = command or "python (in process)"
        self.keep_trace = keep_trace
        self.profile = None
        self._finish = None

    def __enter__(self):
        if self._finish is not None:
            raise Error("rooftime.torch.profile: already running")
        runner, ops = _runner()
        fd, self._trace = tempfile.mkstemp(prefix="rooftime-torch-", suffix=".json")
        os.close(fd)
        here = os.path.dirname(os.path.abspath(__file__)) + os.sep
        try:
            self._finish = runner.start(self._trace, self.steps, ops, library_dirs=(here,))
        except Exception:
            os.unlink(self._trace)
            raise
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        wall = time.perf_counter() - self._t0
        finish, self._finish = self._finish, None
        try:
            finish()
            h = lib.rt_api_profile_torch_trace(self._trace.encode(), wall, self.command.encode())
            core._warn("torch.profile")
            if not h:
                raise fail()
            self.profile = core.Profile(h, self.command)
            if self.keep_trace:
                # a move, not os.replace: the scratch trace is in $TMPDIR, often another
                # file system (tmpfs) than keep_trace's
                shutil.move(self._trace, os.fspath(self.keep_trace))
        except Exception:
            if exc_type is None:
                raise  # the block's own exception wins over ours
            print("rooftime.torch.profile: no profile: %s" % (sys.exc_info()[1],),
                  file=sys.stderr)
        finally:
            if os.path.exists(self._trace):
                os.unlink(self._trace)
        return False
