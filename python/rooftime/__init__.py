"""rooftime from Python: the time-based hierarchical roofline over the C library (librooftime.so).

    import rooftime
    a = rooftime.analyze(rooftime.import_ncu(["run.csv"]), rooftime.machine("v100"))
    a.kernels          # a pandas DataFrame: the kernel rows of `rooftime analyze --format csv`
    a.plot(view="4d")  # shown inline in Jupyter; .save("fig.png")

Every call goes to the C library through ctypes, which releases the GIL while it runs. Errors
raise rooftime.Error with the library's message (file, line and field where known).
"""
from ._lib import Error
from .core import (Analysis, Chart, Diff, Machine, Profile, analyze, diff, import_cupti, import_kind,
                   import_ncu, import_onednn, import_table, import_torch, kernel_name_key,
                   load_machine, load_profile, machine, machine_measure)
from .across import Across, across
from ._gate import GateRefused
from . import torch  # noqa: E402  (rooftime.torch.profile)
from . import gpu  # noqa: E402  (rooftime.gpu.profile)

__version__ = "0.1.0"
__all__ = ["Error", "Machine", "Profile", "Analysis", "Chart", "machine", "machine_measure",
           "load_machine", "load_profile", "import_ncu", "import_table", "import_torch",
           "import_onednn", "import_cupti", "import_kind", "kernel_name_key", "analyze", "diff",
           "Diff", "GateRefused", "across", "Across", "torch", "gpu"]
