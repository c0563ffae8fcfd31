# {"type": "deconv2d" or "deconv3d", "filters": 3, "kernel": ..., "stride": ..., "padding": ..., "activation": "relu"}
# on 2-channel images or volumes (DIMS=2 or 3), flattened into the head of 2 classes. The graph JSON gives each
# deconv node's module arguments under "torch" (kernel_size, stride, padding, output_padding).
import os
import sys

import torch
from torch import nn
import traindeck_weights

TRANSPOSED = {2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}[int(os.environ["DIMS"])]
tensors, graph = traindeck_weights.load(sys.argv[3])
arguments = next(node["torch"] for node in graph["nodes"] if node["name"] == "up")


class UpSampling(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = TRANSPOSED(2, 3, **arguments)
        self.output = nn.Linear(tensors["output.weight"].shape[1], 2)

    def forward(self, x):
        x = torch.relu(self.up(x)).flatten(1)
        return torch.softmax(self.output(x), dim=1)


traindeck_weights.run(UpSampling(), torch.from_numpy, lambda y: y)
