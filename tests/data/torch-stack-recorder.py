"""Records tests/data/torch-2.15-with-stack.json: one training step (forward, backward) of a small
model, a user's nn.Module around torch's Linear and ReLU, under the user's own torch.profiler
(record_shapes=True, with_stack=True), exported with export_chrome_trace. Run with a path, it
records that trace; run without one (under `rooftime profile --torch`), it runs the same step
with no profiler of its own. Not part of the build; see tests/data/README.md."""
import sys

import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 128)
        self.act = torch.nn.ReLU()
        self.fc2 = torch.nn.Linear(128, 64)

    def forward(self, x):
        h = self.act(self.fc1(x))
        return torch.tanh(self.fc2(h)) + x


def step(model, x):
    y = model(x)
    loss = y.pow(2).mean()
    loss.backward()


torch.manual_seed(0)
model = torch.nn.Sequential(Block(), torch.nn.Linear(64, 8))
x = torch.randn(16, 64)
step(model, x)  # warm-up: the profiled step is not the first call
if len(sys.argv) > 1:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True) as prof:
        step(model, x)
    prof.export_chrome_trace(sys.argv[1])
else:
    step(model, x)
