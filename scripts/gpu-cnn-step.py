"""A small CNN training step on the GPU, for scripts/gpu-acceptance.sh.

Three convolutions (3x3) with batch norm and ReLU, a pooling and a linear layer over a batch of
64 RGB images of 64x64, in fp32 with TF32 off: three steps (forward, backward, SGD update), all
profiled alike by `rooftime profile --gpu --counters` and by ncu; the acceptance script compares
their five longest kernels. Exit 1 without CUDA.
"""
import sys


def main():
    import torch
    import torch.nn as nn

    if not torch.cuda.is_available():
        print("gpu-cnn-step: PyTorch sees no CUDA device", file=sys.stderr)
        return 1
    torch.set_float32_matmul_precision("highest")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(128, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10),
    ).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(64, 3, 64, 64, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    print("gpu-cnn-step: loss %.4f" % loss.item())
    return 0


if __name__ == "__main__":
    sys.exit(main())
