# patches3d (size 2, units 8), their mean through a dense + relu (6 units) as the condition, unpatch3d (size 2,
# channels 3) with that "condition": DiT's final layer; then the reconstruction head (a 1x1x1 convolution back to the
# input's channels), on volumes [batch, 2, 4, 2, 6].
import torch
from torch import nn
import traindeck_weights


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


class FinalLayer(nn.Module):
    """DiT's FinalLayer: a norm without gain and bias, shifted and scaled by the condition, then the projection."""

    def __init__(self, features, condition, channels, size, grid):
        super().__init__()
        self.norm_final = nn.LayerNorm(features, elementwise_affine=False, eps=1e-6)
        self.adaLN_modulation = nn.Sequential(nn.SiLU(), nn.Linear(condition, 2 * features))
        self.linear = Unpatch3d(features, channels, size, grid)

    def forward(self, x, c):
        shift, scale = self.adaLN_modulation(c).unsqueeze(1).chunk(2, dim=2)
        return self.linear(self.norm_final(x) * (1 + scale) + shift)


class ConditionedVolumes(nn.Module):
    def __init__(self, channels=2, grid=(2, 1, 3), size=2, units=8):
        super().__init__()
        self.tokens = Patches3d(channels, units, size, grid[0] * grid[1] * grid[2])
        self.cond = nn.Linear(units, 6)
        self.volume = FinalLayer(units, 6, 3, size, grid)
        self.head = nn.Conv3d(3, channels, 1)

    def forward(self, volumes):
        x = self.tokens(volumes)
        return self.head(self.volume(x, torch.relu(self.cond(x.mean(1)))))


traindeck_weights.run(ConditionedVolumes(), torch.from_numpy, lambda y: y)
