"""The CPU peer for TrainDeck's benchmark: the same networks, data shapes, batch and optimizer as
bench/EngineBench.java, trained by PyTorch on the CPU. Prints one "samples_per_s N" line per repeat (the epochs
after the first, as TrainDeck's figure is measured).

usage: pytorch_peer.py mlp|lenet|lenet-large EPOCHS REPEATS THREADS
"""
import sys
import time

import torch
from torch import nn


def model_and_data(kind):
    torch.manual_seed(1)
    if kind == "mlp":
        net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
        x = torch.randn(8192, 784)
        batch = 128
    elif kind == "lenet":
        net = nn.Sequential(
            nn.Conv2d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(16 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))
        x = torch.rand(2048, 1, 28, 28)
        batch = 64
    else:
        net = nn.Sequential(
            nn.Conv2d(1, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(20, 50, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(50 * 7 * 7, 500), nn.ReLU(), nn.Linear(500, 10))
        x = torch.rand(1024, 1, 28, 28)
        batch = 64
    y = torch.randint(0, 10, (x.shape[0],))
    return net, x, y, batch


def main():
    kind, epochs, repeats, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    torch.set_num_threads(threads)
    for _ in range(repeats):
        net, x, y, batch = model_and_data(kind)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        loss_fn = nn.CrossEntropyLoss()
        measured = 0.0
        for epoch in range(epochs):
            start = time.perf_counter()
            order = torch.randperm(x.shape[0])
            for i in range(0, x.shape[0], batch):
                idx = order[i:i + batch]
                opt.zero_grad()
                loss = loss_fn(net(x[idx]), y[idx])
                loss.backward()
                opt.step()
            if epoch > 0:
                measured += time.perf_counter() - start
        print("samples_per_s %.1f" % (x.shape[0] * (epochs - 1) / measured), flush=True)


if __name__ == "__main__":
    main()
