"""A small training script with no profiler code: a CNN (conv, batch norm, relu, pooling, linear,
SGD) and an LSTM (Adam), fp32 or bf16 autocast, NCHW or channels_last. rooftime profiles it from
the outside: rooftime profile --torch -o run.json -- python3 examples/torch/train.py"""
import argparse

import torch
import torch.nn as nn

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=3)
p.add_argument("--batch", type=int, default=16)
p.add_argument("--size", type=int, default=32)
p.add_argument("--bf16", action="store_true")
p.add_argument("--channels-last", action="store_true")
p.add_argument("--no-lstm", action="store_true")
a = p.parse_args()
torch.manual_seed(0)
torch.set_num_threads(1)

cnn = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
x = torch.randn(a.batch, 3, a.size, a.size)
y = torch.randint(0, 10, (a.batch,))
if a.channels_last:
    cnn = cnn.to(memory_format=torch.channels_last)
    x = x.to(memory_format=torch.channels_last)
sgd = torch.optim.SGD(cnn.parameters(), lr=0.01, momentum=0.9)
lstm = nn.LSTM(32, 16, batch_first=True)
head = nn.Linear(16, 1)
xs = torch.randn(a.batch, 12, 32)
adam = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()))

for step in range(a.steps):
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
        loss = nn.functional.cross_entropy(cnn(x), y)
    sgd.zero_grad()
    loss.backward()
    sgd.step()
    if not a.no_lstm:
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=a.bf16):
            out = head(lstm(xs)[0][:, -1])
            l2 = nn.functional.mse_loss(out.float(), torch.zeros(a.batch, 1))
        adam.zero_grad()
        l2.backward()
        adam.step()
print("train.py: %d steps, loss %.4f" % (a.steps, loss.item()))
