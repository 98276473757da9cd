"""A transformer training step with no profiler code: nn.TransformerEncoder (2 layers, d_model 256,
8 heads, feed-forward 1024, dropout 0.1), a linear head, AdamW. rooftime profiles it from the
outside: rooftime profile --torch -o run.json -- PYTHON examples/torch/transformer.py
--chrome-trace PATH profiles the last step with torch's own profiler (record_shapes, with_flops)
and writes its chrome trace, for `rooftime import torch PATH`."""
import argparse

import torch
import torch.nn as nn

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=3)
p.add_argument("--batch", type=int, default=8)
p.add_argument("--seq", type=int, default=128)
p.add_argument("--d-model", type=int, default=256)
p.add_argument("--chrome-trace", help="profile the last step and write its chrome trace here")
a = p.parse_args()
torch.manual_seed(0)

layer = nn.TransformerEncoderLayer(a.d_model, nhead=8, dim_feedforward=4 * a.d_model,
                                   dropout=0.1, batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
head = nn.Linear(a.d_model, 1)
opt = torch.optim.AdamW(list(encoder.parameters()) + list(head.parameters()), lr=1e-4)
x = torch.randn(a.batch, a.seq, a.d_model)
y = torch.randn(a.batch, a.seq, 1)


def step():
    loss = nn.functional.mse_loss(head(encoder(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


for i in range(a.steps - 1 if a.chrome_trace else a.steps):
    loss = step()
if a.chrome_trace:
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_flops=True) as prof:
        loss = step()
    prof.export_chrome_trace(a.chrome_trace)
print("transformer.py: %d steps, %d threads, loss %.4f" % (a.steps, torch.get_num_threads(),
                                                           loss.item()))
