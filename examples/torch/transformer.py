"""Transformers with no profiler code, on torch 1.13 and 2.x. rooftime profiles them from the
outside: rooftime profile --torch -o run.json -- python3 examples/torch/transformer.py train

  train   a TransformerEncoder language-model training step: embedding, attention, layer norm,
          GELU, dropout, cross entropy, AdamW (--optimizer: torch's default for the device,
          foreach or fused)
  decode  a decoder-only model of plain torch.nn, no weights downloaded: a prompt, then one token
          at a time (greedy) with a key/value cache, RMSNorm, a SiLU-gated MLP and
          scaled_dot_product_attention (written out where torch has neither: 1.13)
  block   one transformer block's training step; with --compile, torch.compile'd (torch 2.x)
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("task", choices=["train", "decode", "block"])
p.add_argument("--steps", type=int, default=4, help="training steps, or tokens to decode")
p.add_argument("--batch", type=int, default=8)
p.add_argument("--seq", type=int, default=64, help="sequence (train, block) or prompt length")
p.add_argument("--dim", type=int, default=128)
p.add_argument("--heads", type=int, default=4)
p.add_argument("--layers", type=int, default=2)
p.add_argument("--vocab", type=int, default=1000)
p.add_argument("--optimizer", choices=["default", "foreach", "fused"], default="default")
p.add_argument("--compile", action="store_true", help="torch.compile the model (torch 2.x)")
a = p.parse_args()
torch.manual_seed(0)
torch.set_num_threads(1)


def adamw(params):
    kw = {"foreach": True} if a.optimizer == "foreach" else \
        {"fused": True} if a.optimizer == "fused" else {}
    return torch.optim.AdamW(params, lr=1e-3, **kw)


def rms_norm(x, weight, eps=1e-6):
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), weight, eps)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def attention(q, k, v, causal):
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        s = s.masked_fill(torch.ones(s.shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, -1) @ v


class Block(nn.Module):
    """A pre-norm decoder block: RMSNorm, attention with a key/value cache, a SiLU-gated MLP."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.up = nn.Linear(d, 4 * d, bias=False)
        self.gate = nn.Linear(d, 4 * d, bias=False)
        self.down = nn.Linear(4 * d, d, bias=False)
        self.n1 = nn.Parameter(torch.ones(d))
        self.n2 = nn.Parameter(torch.ones(d))

    def forward(self, x, cache=None):
        b, t, d = x.shape
        q, k, v = self.qkv(rms_norm(x, self.n1)).split(d, -1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if cache is not None:
            if cache:
                k, v = torch.cat([cache[0], k], 2), torch.cat([cache[1], v], 2)
            cache[:] = [k, v]
        y = attention(q, k, v, causal=t > 1).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        h = rms_norm(x, self.n2)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Decoder(nn.Module):
    def __init__(self, vocab, d, heads, layers):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.norm = nn.Parameter(torch.ones(d))
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids, caches):
        x = self.emb(ids)
        for blk, c in zip(self.blocks, caches):
            x = blk(x, c)
        return self.head(rms_norm(x, self.norm))


def maybe_compile(m):
    return torch.compile(m) if a.compile else m


if a.task == "train":
    emb = nn.Embedding(a.vocab, a.dim)
    layer = nn.TransformerEncoderLayer(a.dim, a.heads, 4 * a.dim, batch_first=True,
                                       activation="gelu")
    enc = maybe_compile(nn.TransformerEncoder(layer, a.layers))
    head = nn.Linear(a.dim, a.vocab)
    opt = adamw(list(emb.parameters()) + list(enc.parameters()) + list(head.parameters()))
    x = torch.randint(0, a.vocab, (a.batch, a.seq))
    y = torch.randint(0, a.vocab, (a.batch, a.seq))
    mask = nn.Transformer.generate_square_subsequent_mask(a.seq)
    for step in range(a.steps):
        opt.zero_grad()
        h = enc(emb(x), mask=mask)
        loss = F.cross_entropy(head(h).reshape(-1, a.vocab), y.reshape(-1))
        loss.backward()
        opt.step()
    print("transformer.py train: %d steps, loss %.4f" % (a.steps, loss.item()))
elif a.task == "decode":
    model = Decoder(a.vocab, a.dim, a.heads, a.layers).eval()
    ids = torch.randint(0, a.vocab, (a.batch, a.seq))
    caches = [[] for _ in model.blocks]
    out = []
    with torch.no_grad():
        logits = model(ids, caches)
        for _ in range(a.steps):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            out.append(nxt)
            logits = model(nxt, caches)
    print("transformer.py decode: %d tokens, last %s" % (len(out), out[-1].flatten().tolist()))
else:
    blk = Block(a.dim, a.heads)
    run = maybe_compile(blk)
    opt = adamw(blk.parameters())
    x = torch.randn(a.batch, a.seq, a.dim)
    for step in range(a.steps):
        opt.zero_grad()
        loss = run(x).pow(2).mean()
        loss.backward()
        opt.step()
    print("transformer.py block: %d steps, loss %.4f" % (a.steps, loss.item()))
