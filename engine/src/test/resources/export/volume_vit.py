# patches3d (size 2, units 8) -> transformerBlock (2 heads, mlpRatio 2) -> unpatch3d (size 2, channels 3), then the
# reconstruction head (a 1x1x1 convolution back to the input's channels), on volumes [batch, 2, 4, 2, 6].
import torch
from torch import nn
import traindeck_weights
from blocks import Block


class Patches3d(nn.Module):
    def __init__(self, channels, units, size, tokens):
        super().__init__()
        self.proj = nn.Conv3d(channels, units, size, stride=size)
        self.pos_embed = nn.Parameter(torch.zeros(1, tokens, units))

    def forward(self, volumes):
        # [batch, tokens (depth-major, then height, then width), units]
        return self.proj(volumes).flatten(2).transpose(1, 2) + self.pos_embed


class Unpatch3d(nn.Linear):
    def __init__(self, features, channels, size, grid):
        super().__init__(features, size ** 3 * channels)
        self.channels, self.size, self.grid = channels, size, grid

    def forward(self, tokens):
        c, s, (d, h, w) = self.channels, self.size, self.grid
        x = super().forward(tokens)                    # [batch, d h w, c s s s]: each token's patch [c, s, s, s]
        x = x.reshape(-1, d, h, w, c, s, s, s).permute(0, 4, 1, 5, 2, 6, 3, 7)
        return x.reshape(-1, c, d * s, h * s, w * s)   # einops: "b (d h w) (c p q r) -> b c (d p) (h q) (w r)"


class VolumeVit(nn.Module):
    def __init__(self, channels=2, grid=(2, 1, 3), size=2, units=8):
        super().__init__()
        self.tokens = Patches3d(channels, units, size, grid[0] * grid[1] * grid[2])
        self.block = Block(units, 2, units * 2, causal=False)
        self.volume = Unpatch3d(units, 3, size, grid)
        self.head = nn.Conv3d(3, channels, 1)

    def forward(self, volumes):
        return self.head(self.volume(self.block(self.tokens(volumes))))


traindeck_weights.run(VolumeVit(), torch.from_numpy, lambda y: y)
