"""Records tests/data/torch-2.15-uncounted.json: one call each of the operators whose work no FLOP
or byte count measures (random numbers, sorting, data-dependent indexing, unique), a gather, and
an add, under torch.profiler (record_shapes). Not part of the build; see tests/data/README.md."""
import sys

import torch
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
x = torch.randn(64, 256)
ix = torch.randint(0, 64, (32,))
col = torch.randint(0, 256, (64, 8))
with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
    y = torch.nn.functional.dropout(x, 0.1, training=True)  # bernoulli_, mul, div_
    torch.rand(64, 256)                                      # uniform_
    torch.randperm(1000)
    torch.sort(x, dim=1)
    torch.topk(x, 4, dim=1)
    torch.argsort(x, dim=0)
    x[ix]                                                    # index
    z = torch.zeros(64, 256)
    z.index_put_((ix,), x[:32])
    z.scatter_add_(1, col, torch.ones(64, 8))
    torch.gather(x, 1, col)
    torch.unique(ix)
    x.add(y)
prof.export_chrome_trace(sys.argv[1])
