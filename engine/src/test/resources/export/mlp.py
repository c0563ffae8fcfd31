# The MLP {"type": "mlp", "hidden": [32, 16], "activation": "relu"} on 12 features, 3 classes.
import torch
from torch import nn
import traindeck_weights


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.dense0 = nn.Linear(12, 32)
        self.dense1 = nn.Linear(32, 16)
        self.output = nn.Linear(16, 3)

    def forward(self, x):
        x = torch.relu(self.dense1(torch.relu(self.dense0(x))))
        return torch.softmax(self.output(x), dim=1)


traindeck_weights.run(Mlp(), torch.from_numpy, lambda y: y)
