"""rooftime's Python package on a GPU, for scripts/gpu-acceptance.sh: the CNN training step of
scripts/gpu-cnn-step.py (same model, batch and steps) under rooftime.gpu.profile() (the CUPTI
collector attached in this process, a trace) and under rooftime.torch.profile() (the PyTorch
operators, the runner of data/torch/runner in process).

    python3 scripts/gpu-python-check.py --out DIR [--steps N]

writes DIR/py-gpu.json and DIR/py-gpu.cupti/ (the collector's directory), DIR/py-torch.json and
DIR/py-torch.trace.json; the acceptance evaluation compares py-gpu.json's kernels with those of
`profile --gpu` (cnn.json). rooftime comes from the checkout's python/ and $ROOFTIME_LIB (the
carried librooftime.so). Without CUDA, rooftime.gpu.profile() must refuse with one line and
rooftime.torch.profile() runs the same step on the CPU: the package's paths are exercised on any
machine. Each part that fails says so in one line (a rooftime.Error is the library's message);
exit 0 when both wrote their profile, 1 otherwise, 2 on a usage error.
"""
import argparse
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def cnn_step_module():
    path = os.path.join(HERE, "gpu-cnn-step.py")
    spec = importlib.util.spec_from_file_location("gpu_cnn_step", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="where the profiles go (created if missing)")
    ap.add_argument("--steps", type=int, default=2, help="training steps (default 2)")
    args = ap.parse_args()
    if not 1 <= args.steps <= 100:
        ap.error("--steps takes 1 to 100, got %d" % args.steps)
    os.makedirs(args.out, exist_ok=True)
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    try:
        import torch
        import rooftime
    except ImportError as e:  # no PyTorch, or no librooftime.so ($ROOFTIME_LIB)
        print("gpu-python-check: %s" % e, file=sys.stderr)
        return 1

    cnn = cnn_step_module()
    cuda = torch.cuda.is_available()
    print("python %s, torch %s, rooftime %s, CUDA %s" % (
        sys.version.split()[0], torch.__version__, rooftime.__version__,
        torch.cuda.get_device_name(0) if cuda else "none"))
    failed = 0

    # rooftime.gpu.profile(): the collector in process, around the steps on the GPU
    try:
        with rooftime.gpu.profile(keep_dir=os.path.join(args.out, "py-gpu.cupti")) as p:
            p.mark({"pass": "step"})
            loss = cnn.run(*cnn.make("cuda"), steps=args.steps)
            p.mark()
        p.save(os.path.join(args.out, "py-gpu.json"))
        print("rooftime.gpu.profile: %d kernels, loss %.4f" % (len(p.profile), loss))
    except rooftime.Error as e:
        failed += 1
        print("rooftime.gpu.profile: %s" % e)

    # rooftime.torch.profile(): the operators, on the GPU where there is one, else the CPU
    dev = "cuda" if cuda else "cpu"
    model = cnn.make(dev, batch=64 if cuda else 4, size=64 if cuda else 16)
    try:
        with rooftime.torch.profile(keep_trace=os.path.join(args.out, "py-torch.trace.json")) as t:
            loss = cnn.run(*model, steps=args.steps)
        t.save(os.path.join(args.out, "py-torch.json"))
        print("rooftime.torch.profile (%s): %d operators, loss %.4f" % (dev, len(t.profile), loss))
    except rooftime.Error as e:
        failed += 1
        print("rooftime.torch.profile: %s" % e)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
