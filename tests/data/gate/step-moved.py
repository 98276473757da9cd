# step.py after an edit that moves every line: these three lines of comment on top, the
# rest unchanged below them, and another file name. A diff of a run of each must match every
# kernel (tests/cli-gate.sh).
"""The regression gate's workload (tests/cli-gate.sh, docs/ci-gate.md): a small MLP's training
step in PyTorch on one thread, 42 steps; `profile --torch --steps 2:42` keeps the last 40."""
import torch
import torch.nn as nn


def main(steps=42):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn(64, 256)
    y = torch.randint(0, 10, (64,))
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
