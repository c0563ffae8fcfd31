# A graph on 1x8x8 images: patches of 2 (8 units) as the tokens, patches of 4 as the context, the tokens' mean through
# a dense + relu as the condition; a transformerBlock with "condition" and "context", a crossAttention, average
# pooling, 2 classes.
import math

import torch
from torch import nn
import traindeck_weights
from blocks import Attention, gelu


class CrossAttention(nn.Module):
    def __init__(self, width, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v, self.o = (nn.Linear(width, width) for _ in range(4))

    def forward(self, x, context):
        b, t, c = x.shape
        split = lambda y: y.view(b, y.shape[1], self.heads, c // self.heads).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(context)), split(self.v(context))
        scores = q @ k.transpose(-2, -1) / math.sqrt(c // self.heads)
        return self.o((torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(b, t, c))


class ConditionedBlock(nn.Module):
    """DiT's adaLN-Zero block (its norms keep their own gain and bias), a pre-norm cross-attention after the self-attention."""

    def __init__(self, width, heads, hidden, condition):
        super().__init__()
        self.norm1 = nn.LayerNorm(width, eps=1e-5)
        self.attention = Attention(width, heads, causal=False)
        self.norm_cross = nn.LayerNorm(width, eps=1e-5)
        self.cross_attention = CrossAttention(width, heads)
        self.norm2 = nn.LayerNorm(width, eps=1e-5)
        self.mlp1 = nn.Linear(width, hidden)
        self.mlp2 = nn.Linear(hidden, width)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(condition, 6 * width))

    def forward(self, x, c, context):
        shift1, scale1, gate1, shift2, scale2, gate2 = self.adaLN_modulation(c).unsqueeze(1).chunk(6, dim=2)
        x = x + gate1 * self.attention(self.norm1(x) * (1 + scale1) + shift1)
        x = x + self.cross_attention(self.norm_cross(x), context)
        return x + gate2 * self.mlp2(gelu(self.mlp1(self.norm2(x) * (1 + scale2) + shift2)))


class Patches(nn.Module):
    def __init__(self, channels, width, patch, count):
        super().__init__()
        self.projection = nn.Conv2d(channels, width, patch, stride=patch)
        self.positions = nn.Parameter(torch.zeros(count, width))

    def forward(self, images):
        return self.projection(images).flatten(2).transpose(1, 2) + self.positions


class Conditioned(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = Patches(1, 8, 2, 16)
        self.ctx = Patches(1, 8, 4, 4)
        self.cond = nn.Linear(8, 6)
        self.blk = ConditionedBlock(8, 2, 32, 6)
        self.cross = CrossAttention(8, 2)
        self.output = nn.Linear(8, 2)

    def forward(self, images):
        x, context = self.tokens(images), self.ctx(images)
        x = self.blk(x, torch.relu(self.cond(x.mean(1))), context)
        return torch.softmax(self.output(self.cross(x, context).mean(1)), dim=1)


traindeck_weights.run(Conditioned(), torch.from_numpy, lambda y: y)
