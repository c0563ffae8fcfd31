# {"type": "vit", "patch": 4, "width": 16, "depth": 2, "heads": 2, "mlpRatio": 2, "classToken": true}
# on 1x12x12 images, 3 classes.
import torch
from torch import nn
import traindeck_weights
from blocks import Block


class Patches(nn.Module):
    def __init__(self, channels, width, patch, count):
        super().__init__()
        self.projection = nn.Conv2d(channels, width, patch, stride=patch)
        self.class_token = nn.Parameter(torch.zeros(width))
        self.positions = nn.Parameter(torch.zeros(count + 1, width))

    def forward(self, images):
        x = self.projection(images).flatten(2).transpose(1, 2)   # [batch, patches (row-major), width]
        token = self.class_token.expand(x.shape[0], 1, -1)
        return torch.cat([token, x], dim=1) + self.positions


class Vit(nn.Module):
    def __init__(self, channels=1, side=12, patch=4, width=16, depth=2, heads=2, mlp_ratio=2, classes=3):
        super().__init__()
        self.patches = Patches(channels, width, patch, (side // patch) ** 2)
        self.blocks = [Block(width, heads, width * mlp_ratio, causal=False) for _ in range(depth)]
        for i, block in enumerate(self.blocks):
            self.add_module("block" + str(i + 1), block)
        self.norm = nn.LayerNorm(width, eps=1e-5)
        self.output = nn.Linear(width, classes)

    def forward(self, images):
        x = self.patches(images)
        for block in self.blocks:
            x = block(x)
        return torch.softmax(self.output(self.norm(x)[:, 0]), dim=1)   # the class token


traindeck_weights.run(Vit(), torch.from_numpy, lambda y: y)
