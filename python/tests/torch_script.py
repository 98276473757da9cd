"""A small CNN + LSTM training step, the script test_torch.py profiles both ways."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.lstm = nn.LSTM(input_size=8 * 8, hidden_size=16, batch_first=True)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        h = torch.relu(self.conv(x))              # N, 8, 8, 8
        h = h.flatten(2)                         # N, 8 channels as steps, 64 features
        out, _ = self.lstm(h)
        return self.head(out[:, -1])


def main(steps=3):
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x = torch.randn(4, 3, 8, 8)
    y = torch.randint(0, 10, (4,))
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
