"""rooftime's PyTorch runner: what torch.compile's generated code says of its CPU kernels.

Inductor's CPU kernels (cpp_fused_*) are recorded by torch's profiler by name only (their
RecordFunction passes no inputs). The Python module inductor generates and loads for each compiled
graph (its "output code") says, for each kernel, the buffers every call passes: their sizes (the
wrapper's empty_strided_cpu, reinterpret_tensor, assert_size_stride and assert_tensor_metadata),
their element type and whether the kernel reads, writes or updates each (the C++ signature's const,
in_ptr, out_ptr and in_out_ptr). kernels() reads that, per kernel as the profiler names it, for
rooftime_torch_events.py to write beside the kernel's events; `rooftime import torch` costs them.

The code is read as Python (ast), never run. What cannot be read exactly (a size that is a symbol,
an argument whose size the wrapper never states, calls of one kernel with different sizes, one
name in two graphs with different buffers) gives no record: the importer then says the kernel's
work is not counted. Where the loaded modules are is torch's private business: WHERE below says
it per torch, newest first, so that the next torch is a row.
"""
import ast
import re

# Where each torch keeps the modules inductor generated and loaded: (since, module, class,
# attributes that hold them: a list of modules or a dict of them)
WHERE = (((2, 0), "torch._inductor.codecache", "PyCodeCache", ("modules", "modules_no_attr")),)

# The C++ element types of inductor's CPU kernels, as torch's profiler names types
CTYPES = {"float": "float", "double": "double", "at::BFloat16": "c10::BFloat16",
          "at::Half": "c10::Half", "bfloat16": "c10::BFloat16", "half": "c10::Half",
          "int64_t": "long int", "int32_t": "int", "int16_t": "short int", "int8_t": "signed char",
          "uint8_t": "unsigned char", "bool": "bool"}
# inductor's argument names: how the kernel uses each buffer
ACCESS = (("in_out_ptr", "in_out"), ("in_ptr", "in"), ("out_ptr", "out"))
# the largest output code read (bytes) and the most arguments of one kernel recorded
MAX_SOURCE = 64 << 20
MAX_ARGS = 32

_SIG = re.compile(r'extern\s+"C"[^(]*\(([^)]*)\)')
_PROFILED = re.compile(r'RAIIAtenRecordFunctionHandle\s+\w+\s*\(\s*"([^"]+)"')
_ALLOC = ("empty_strided_cpu", "empty_strided")


def _signature(src):
    """(profiled name, [(torch type, access)]) of a kernel's C++ source, or None."""
    m, p = _SIG.search(src), _PROFILED.search(src)
    if not m or not p:
        return None  # kernel profiling off: the kernel has no events of its own
    args = []
    for a in m.group(1).split(","):
        words = a.replace("*", " * ").split()
        if "*" not in words or len(words) < 3:
            return None  # a scalar (a symbolic size): the sizes are not constants
        name = words[-1]
        base = " ".join(w for w in words[:-1] if w not in ("const", "*", "__restrict__"))
        access = next((v for k, v in ACCESS if name.startswith(k)), None)
        if base not in CTYPES or not access:
            return None
        args.append((CTYPES[base], access))
    return p.group(1), args


def _shape(node):
    """A literal tuple of whole sizes, or None (a symbol, an expression)."""
    try:
        v = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(v, tuple) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0
                                    for x in v):
        return list(v)
    return None


def _callee(node):
    f = node.func if isinstance(node, ast.Call) else None
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def _size_of(node, env):
    """The size of a kernel's argument: a buffer the wrapper sized, or a reinterpret_tensor."""
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if _callee(node) == "reinterpret_tensor" and len(node.args) >= 2:
        return _shape(node.args[1])
    return None


def _statements(body):
    for s in body:
        yield s
        for field in ("body", "orelse", "finalbody"):
            if isinstance(s, (ast.With, ast.If, ast.Try)) and getattr(s, field, None):
                yield from _statements(getattr(s, field))


def _calls(fn, kernels, seen):
    """The kernels' calls in a wrapper function, each argument's size from the statements before
    it: seen[profiled name] gets the list of sizes, or False when calls differ or a size is not
    stated."""
    env = {}
    for s in _statements(fn.body):
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name):
            t, v = s.targets[0].id, s.value
            c = _callee(v)
            env.pop(t, None)
            if c in _ALLOC and v.args:
                env[t] = _shape(v.args[0])
            elif c == "reinterpret_tensor" and len(v.args) >= 2:
                env[t] = _shape(v.args[1])
            elif isinstance(v, ast.Name) and v.id in env:
                env[t] = env[v.id]  # a buffer reused under another name
            continue
        if isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    env.pop(t.id, None)
            continue
        if not isinstance(s, ast.Expr) or not isinstance(s.value, ast.Call):
            continue
        v, c = s.value, _callee(s.value)
        if c in ("assert_size_stride", "assert_tensor_metadata") and len(v.args) >= 2 and \
                isinstance(v.args[0], ast.Name):
            env[v.args[0].id] = _shape(v.args[1])
        elif c == "assert_size_stride_grouped" and len(v.args) >= 2 and \
                isinstance(v.args[0], ast.Tuple) and isinstance(v.args[1], ast.Tuple) and \
                len(v.args[0].elts) == len(v.args[1].elts):
            for n, z in zip(v.args[0].elts, v.args[1].elts):
                if isinstance(n, ast.Name):
                    env[n.id] = _shape(z)
        elif c in kernels and isinstance(v.func, ast.Name):
            name, sig = kernels[c]
            sizes = [_size_of(a, env) for a in v.args]
            ok = len(sizes) == len(sig) and all(x is not None for x in sizes) and not v.keywords
            if not ok or seen.get(name, sizes) != sizes:
                seen[name] = False
            else:
                seen[name] = sizes


def read_source(text, records):
    """Add the kernels of one output code (its Python source) to records: profiled name -> {"dims",
    "types", "access"}, or None where its calls or its graphs disagree."""
    tree = ast.parse(text)
    kernels = {}
    for s in tree.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], ast.Name) and _callee(s.value) == "cpp_pybinding" and \
                len(s.value.args) >= 2 and isinstance(s.value.args[1], ast.Constant) and \
                isinstance(s.value.args[1].value, str):
            sig = _signature(s.value.args[1].value)
            if sig and len(sig[1]) <= MAX_ARGS:
                kernels[s.targets[0].id] = sig
    if not kernels:
        return
    seen = {}
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and (fn.name == "call" or
                                                fn.name.startswith("partition_")):
            _calls(fn, kernels, seen)
    for name, sig in kernels.values():
        sizes = seen.get(name)
        if sizes is None:
            continue  # defined, not called here
        rec = {"dims": sizes, "types": [t for t, _ in sig], "access": [a for _, a in sig]} \
            if sizes else None
        if name in records and records[name] != rec:
            rec = None  # one name, two graphs, different buffers
        records[name] = rec


def _modules(torch_version):
    import sys

    for since, module, cls, attrs in WHERE:
        if torch_version < since:
            continue
        holder = getattr(sys.modules.get(module), cls, None)
        for a in attrs:
            v = getattr(holder, a, None)
            yield from (v.values() if isinstance(v, dict) else v or ())
        return


def kernels(torch_version):
    """Profiled kernel name -> {"dims": sizes per argument, "types": torch's type names,
    "access": "in", "out" or "in_out" per argument}, or None where the code disagrees with itself;
    {} where no compiled code was loaded. A module that cannot be read is left out."""
    records, done = {}, set()
    for m in _modules(torch_version):
        path = getattr(m, "__file__", None)
        if not path or path in done:
            continue
        done.add(path)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(MAX_SOURCE + 1)
            if len(text) <= MAX_SOURCE:
                read_source(text, records)
        except (OSError, ValueError, SyntaxError, RecursionError, MemoryError):
            pass
    return records
