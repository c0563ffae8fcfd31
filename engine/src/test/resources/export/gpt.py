# sample-configs/text-gpt.json's model: {"type": "gpt", "width": 64, "depth": 2, "heads": 4, "mlpRatio": 4}.
# python3 gpt.py IDS.npy OUT_PREFIX WEIGHTS... with the vocabulary and context as further settings below.
import math
import os

import torch
from torch import nn
import traindeck_weights

VOCABULARY = int(os.environ["VOCABULARY"])
CONTEXT = int(os.environ["CONTEXT"])


def gelu(x):
    return x * torch.sigmoid(1.702 * x)   # DL4J's GELU: the sigmoid approximation, not the erf form


class Attention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(width, width) for _ in range(4))

    def forward(self, x):
        b, t, c = x.shape
        split = lambda y: y.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(c // self.heads)
        scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))  # causal
        return self.o((torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    def __init__(self, width, heads, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(width, eps=1e-5)
        self.attention = Attention(width, heads)
        self.norm2 = nn.LayerNorm(width, eps=1e-5)
        self.mlp1 = nn.Linear(width, hidden)
        self.mlp2 = nn.Linear(hidden, width)

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp2(gelu(self.mlp1(self.norm2(x))))


class Gpt(nn.Module):
    def __init__(self, vocabulary, context, width=64, depth=2, heads=4, mlp_ratio=4):
        super().__init__()
        self.tokens = nn.Embedding(vocabulary, width)
        self.positions = nn.Embedding(context, width)
        self.blocks = [Block(width, heads, width * mlp_ratio) for _ in range(depth)]
        for i, block in enumerate(self.blocks):
            self.add_module("block" + str(i + 1), block)
        self.norm = nn.LayerNorm(width, eps=1e-5)
        self.output = nn.Linear(width, vocabulary)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions.weight[: ids.shape[1]]
        for block in self.blocks:
            x = block(x)
        return torch.softmax(self.output(self.norm(x)), dim=-1)   # [batch, time, vocabulary]


traindeck_weights.run(Gpt(VOCABULARY, CONTEXT), lambda ids: torch.from_numpy(ids).long(),
                      lambda y: y.transpose(1, 2))   # TrainDeck's outputs are [batch, vocabulary, time]
