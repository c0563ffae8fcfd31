# {"type": "deconv2d" or "deconv3d", "filters": 3, "kernel": 2, "stride": 2, "activation": "relu"} on 2-channel
# images or volumes (DIMS=2 or 3), a global average pool and 2 classes.
import os

import torch
from torch import nn
import traindeck_weights

TRANSPOSED = {2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}[int(os.environ["DIMS"])]


class UpSampling(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = TRANSPOSED(2, 3, 2, stride=2)
        self.output = nn.Linear(3, 2)

    def forward(self, x):
        x = torch.relu(self.up(x)).flatten(2).mean(2)
        return torch.softmax(self.output(x), dim=1)


traindeck_weights.run(UpSampling(), torch.from_numpy, lambda y: y)
