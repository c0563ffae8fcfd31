# The pre-norm transformer block of TrainDeck's transformerBlock (gpt, vit), in PyTorch.
import math

import torch
from torch import nn


def gelu(x):
    return x * torch.sigmoid(1.702 * x)   # DL4J's GELU: the sigmoid approximation, not the erf form


class Attention(nn.Module):
    def __init__(self, width, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.q, self.k, self.v, self.o = (nn.Linear(width, width) for _ in range(4))

    def forward(self, x):
        b, t, c = x.shape
        split = lambda y: y.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(c // self.heads)
        if self.causal:
            scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        return self.o((torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, t, c))


class Block(nn.Module):
    def __init__(self, width, heads, hidden, causal):
        super().__init__()
        self.norm1 = nn.LayerNorm(width, eps=1e-5)
        self.attention = Attention(width, heads, causal)
        self.norm2 = nn.LayerNorm(width, eps=1e-5)
        self.mlp1 = nn.Linear(width, hidden)
        self.mlp2 = nn.Linear(hidden, width)

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.mlp2(gelu(self.mlp1(self.norm2(x))))
