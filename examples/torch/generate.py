#!/usr/bin/python3
"""A small generation loop in plain torch.nn, for `rooftime profile --torch` (no downloaded weights).

A decoder-only transformer (token and position embeddings, pre-norm blocks of causal self-attention
with a KV cache and a GELU MLP, a language-model head) with random weights: one forward over the
prompt (the prefill), then one forward per new token over the KV cache (the decode steps), greedy.
`rooftime profile --torch -- python3 examples/torch/generate.py` tags each operator with its phase
from the attention's query length; with --marks the loop marks its phases itself
(record_function("rooftime:phase=prefill") and "rooftime:phase=decode"), as a user would.
--sdpa runs the attention through scaled_dot_product_attention (torch 2.0 and later).
"""
import argparse
import contextlib
import math
import sys

import torch


class Block(torch.nn.Module):
    def __init__(self, d, heads, sdpa):
        super().__init__()
        self.heads, self.sdpa = heads, sdpa
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.out = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.up, self.down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def attend(self, q, k, v):
        if self.sdpa:
            return torch.nn.functional.scaled_dot_product_attention(q, k, v,
                                                                    is_causal=q.shape[-2] > 1)
        s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        n, m = q.shape[-2], k.shape[-2]
        if n > 1:  # the prompt: each token sees those before it
            mask = torch.ones(n, m, dtype=torch.bool).triu(m - n + 1)
            s = s.masked_fill(mask, float("-inf"))
        return torch.matmul(s.softmax(-1), v)

    def forward(self, x, cache):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, d // self.heads).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        if cache is not None:
            k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
        o = self.attend(q, k, v).transpose(1, 2).reshape(b, n, d)
        x = x + self.out(o)
        x = x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x))))
        return x, (k, v)


class Model(torch.nn.Module):
    def __init__(self, vocab, d, heads, layers, context, sdpa):
        super().__init__()
        self.tok, self.pos = torch.nn.Embedding(vocab, d), torch.nn.Embedding(context, d)
        self.blocks = torch.nn.ModuleList(Block(d, heads, sdpa) for _ in range(layers))
        self.ln = torch.nn.LayerNorm(d)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, ids, caches, start):
        pos = torch.arange(start, start + ids.shape[1]).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        new = []
        for block, cache in zip(self.blocks, caches):
            x, c = block(x, cache)
            new.append(c)
        return self.head(self.ln(x[:, -1])), new


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--prompt", type=int, default=32, help="prompt tokens (the prefill)")
    p.add_argument("--new", type=int, default=8, help="tokens generated (the decode steps)")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=1024)
    p.add_argument("--marks", action="store_true",
                   help="mark the phases (record_function rooftime:phase=prefill / =decode)")
    p.add_argument("--sdpa", action="store_true", help="scaled_dot_product_attention (torch 2)")
    a = p.parse_args(argv)
    if a.sdpa and not hasattr(torch.nn.functional, "scaled_dot_product_attention"):
        print("generate.py: torch %s has no scaled_dot_product_attention" % torch.__version__,
              file=sys.stderr)
        return 1
    torch.manual_seed(0)
    model = Model(a.vocab, a.hidden, a.heads, a.layers, a.prompt + a.new, a.sdpa).eval()
    ids = torch.randint(0, a.vocab, (a.batch, a.prompt))

    def phase(name):
        if not a.marks:
            return contextlib.nullcontext()
        return torch.autograd.profiler.record_function("rooftime:phase=" + name)

    with torch.no_grad():
        with phase("prefill"):
            logits, caches = model(ids, [None] * a.layers, 0)
            token = logits.argmax(-1, keepdim=True)
        out = [token]
        for i in range(a.new - 1):
            with phase("decode"):
                logits, caches = model(token, caches, a.prompt + i)
                token = logits.argmax(-1, keepdim=True)
            out.append(token)
    print("generated %d tokens after a %d-token prompt: %s" % (len(out), a.prompt,
          " ".join(str(int(t[0, 0])) for t in out)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
