# sample-configs/text-gpt.json's model: {"type": "gpt", "width": 64, "depth": 2, "heads": 4, "mlpRatio": 4}.
import os

import torch
from torch import nn
import traindeck_weights
from blocks import Block


class Gpt(nn.Module):
    def __init__(self, vocabulary, context, width=64, depth=2, heads=4, mlp_ratio=4):
        super().__init__()
        self.tokens = nn.Embedding(vocabulary, width)
        self.positions = nn.Embedding(context, width)
        self.blocks = [Block(width, heads, width * mlp_ratio, causal=True) for _ in range(depth)]
        for i, block in enumerate(self.blocks):
            self.add_module("block" + str(i + 1), block)
        self.norm = nn.LayerNorm(width, eps=1e-5)
        self.output = nn.Linear(width, vocabulary)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions.weight[: ids.shape[1]]
        for block in self.blocks:
            x = block(x)
        return torch.softmax(self.output(self.norm(x)), dim=-1)   # [batch, time, vocabulary]


net = Gpt(int(os.environ["VOCABULARY"]), int(os.environ["CONTEXT"]))
traindeck_weights.run(net, lambda ids: torch.from_numpy(ids).long(),
                      lambda y: y.transpose(1, 2))   # TrainDeck's outputs are [batch, vocabulary, time]
