# {"type": "lenet", "channels": [4, 8], "kernelSize": 5, "dense": 16, "batchNorm": true} on 1x12x12 images, 3 classes.
import torch
from torch import nn
import traindeck_weights


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv0 = nn.Conv2d(1, 4, 5, padding=2)   # convolutionMode Same
        self.bn0 = nn.BatchNorm2d(4, eps=1e-5)
        self.conv1 = nn.Conv2d(4, 8, 5, padding=2)
        self.bn1 = nn.BatchNorm2d(8, eps=1e-5)
        self.dense = nn.Linear(8 * 3 * 3, 16)
        self.output = nn.Linear(16, 3)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.bn0(self.conv0(x))), 2)
        x = nn.functional.max_pool2d(torch.relu(self.bn1(self.conv1(x))), 2)
        x = torch.relu(self.dense(torch.flatten(x, 1)))   # channels, rows, columns: DL4J's order too
        return torch.softmax(self.output(x), dim=1)


traindeck_weights.run(LeNet(), torch.from_numpy, lambda y: y)
