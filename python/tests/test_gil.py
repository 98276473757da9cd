"""Long calls release the GIL: another Python thread runs while the library loads a large profile.
The same call through a ctypes.PyDLL (which keeps the GIL) is the control that shows the test can
tell the two apart."""
import ctypes
import json
import os
import threading

import rooftime
from rooftime import _lib


def big_profile(repo, path, n=40000):
    ex = json.load(open(os.path.join(repo, "data", "examples", "conv2d-pt-fp16.json")))
    base = ex["kernels"]
    ex["kernels"] = [dict(base[i % len(base)], name="kernel %d" % i) for i in range(n)]
    with open(path, "w") as f:
        json.dump(ex, f)


def progress_during(call):
    """How far a counting thread got while call() ran in this one."""
    state = {"n": 0, "stop": False}

    def count():
        while not state["stop"]:
            state["n"] += 1

    t = threading.Thread(target=count)
    t.start()
    while state["n"] == 0:  # the counter is running
        pass
    before = state["n"]
    call()
    after = state["n"]
    state["stop"] = True
    t.join()
    return after - before


def test_calls_release_the_gil(repo, tmp_path):
    path = str(tmp_path / "big.json")
    big_profile(repo, path)
    py = ctypes.PyDLL(_lib._find())  # the same library, called with the GIL held
    py.rt_api_profile_load.restype = ctypes.c_void_p
    py.rt_api_profile_load.argtypes = [ctypes.c_char_p]
    py.rt_api_profile_free.argtypes = [ctypes.c_void_p]

    def held():
        py.rt_api_profile_free(py.rt_api_profile_load(path.encode()))

    def released():
        assert len(rooftime.load_profile(path)) == 40000

    with_gil = min(progress_during(held) for _ in range(2))
    without = max(progress_during(released) for _ in range(2))
    print("counter progress: GIL held %d, released %d" % (with_gil, without))
    # while a call holds the GIL the counter moves only at its edges (a switch interval, 5 ms,
    # before and after); while it runs without the GIL the counter runs all along
    assert without > 4 * with_gil, (without, with_gil)
