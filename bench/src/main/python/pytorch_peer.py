"""The CPU peer for TrainDeck's benchmark: the same networks, data shapes, batch and optimizer as
bench/EngineBench.java and bench/TransformerNets.java, trained by PyTorch on the CPU. Prints "parameters N" once
and one "samples_per_s N" line per repeat (the epochs after the first, as TrainDeck's figure is measured).

usage: pytorch_peer.py mlp|lenet|lenet-large|resnet|resnet18|unet|unet-deconv|unet128|volumes|volumes64|vit|gpt|vit-ws|gpt-ws|xray16 EPOCHS REPEATS SETTING [BATCH] [TEXT] [SAMPLES] [DIFFUSION] [BACK]
       pytorch_peer.py trace KIND STEPS SETTING [BATCH]
  SETTING is the threads of one process ("2") or DistributedDataParallel's processes x threads ("2x1"), see
  peer_launcher.py; trace prints the global batch's loss after each of the first STEPS steps ("loss STEP VALUE");
  BATCH overrides the model's batch; TEXT is the gpts' UTF-8 text (the GPT sample's, data/text/gpl-3.txt; "-" for none),
  for xray16 the .npz of volumes and views (volume_diffusion_peer.py);
  SAMPLES the workstation-size models' images or windows (vit-ws, gpt-ws: bench/TransformerNets.java's), xray16's
  phantoms; DIFFUSION (xray16) the sample's schedule, timesteps and prediction, as "cosine:1000:v";
  BACK (xray16) the .npz array of the back-projection input ("-" for none)
"""
import math
import sys
import time

import torch
from torch import nn

import peer_launcher
import volume_diffusion_peer

# The transformer peers: sample-configs/fashion-vit.json's and text-gpt.json's networks, node for node as
# `traindeck validate --expand --summary` prints them (72,074 and 113,996 parameters).
# the defaults; TransformerPeers passes its own counts (TransformerNets.sampleRows)
VIT_SAMPLES = 4096
GPT_WINDOWS = 2048
GPT_CONTEXT = 64
GPT_STRIDE = 16
# the models trained to give back their inputs (mean squared error)
RECONSTRUCTION = ("volumes", "volumes64")


class DeepLearning4jGelu(nn.Module):
    """DL4J's Activation.GELU is the sigmoid approximation x * sigmoid(1.702 x), not erf's GELU."""

    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class SelfAttention(nn.Module):
    """As TrainDeck's SelfAttention: one [width, 3 width] projection, heads as one batched product, optional causal mask."""

    def __init__(self, width, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x):  # [mb, T, width]
        mb, t, width = x.shape
        q, k, v = self.qkv(x).reshape(mb, t, 3, self.heads, width // self.heads).permute(2, 0, 3, 1, 4)
        scores = (q / math.sqrt(width // self.heads)) @ k.transpose(-2, -1)  # [mb, heads, T, T]
        if self.causal:
            scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        attended = torch.softmax(scores, dim=-1) @ v  # [mb, heads, T, headSize]
        return self.out(attended.transpose(1, 2).reshape(mb, t, width))


class Block(nn.Module):
    """Pre-norm: x + dropout(attention(norm(x))), then x + dropout(mlp(norm(x)))."""

    def __init__(self, width, heads, mlp_ratio, causal, dropout):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(width, eps=1e-5), nn.LayerNorm(width, eps=1e-5)
        self.attention = SelfAttention(width, heads, causal)
        hidden = round(width * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(width, hidden), DeepLearning4jGelu(), nn.Linear(hidden, width))
        self.drop1, self.drop2 = nn.Dropout(dropout), nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.drop1(self.attention(self.norm1(x)))
        return x + self.drop2(self.mlp(self.norm2(x)))


class Vit(nn.Module):
    """fashion-vit.json: 4x4 patches projected to 64 (cut with a reshape, as TrainDeck's PatchEmbedding), a class
    token, position embeddings, 2 blocks (4 heads, MLP ratio 2), a final norm, the class token's features, a dense head."""

    def __init__(self, patch=4, width=64, depth=2, heads=4, mlp_ratio=2, image=28, classes=10, channels=1):
        super().__init__()
        self.patch, self.width = patch, width
        tokens = (image // patch) ** 2 + 1
        self.project = nn.Linear(channels * patch * patch, width)
        self.cls = nn.Parameter(torch.randn(1, 1, width) * 0.02)
        self.positions = nn.Parameter(torch.randn(1, tokens, width) * 0.02)
        self.blocks = nn.Sequential(*[Block(width, heads, mlp_ratio, False, 0.0) for _ in range(depth)])
        self.norm = nn.LayerNorm(width, eps=1e-5)
        self.head = nn.Linear(width, classes)

    def forward(self, x):  # [mb, channels, image, image]
        mb, c, h, w = x.shape
        p = self.patch
        cut = x.reshape(mb, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5).reshape(mb, -1, c * p * p)
        tokens = torch.cat([self.cls.expand(mb, -1, -1), self.project(cut)], dim=1) + self.positions
        return self.head(self.norm(self.blocks(tokens))[:, 0])


class Gpt(nn.Module):
    """text-gpt.json: token and position embeddings (64 wide, context 64), dropout 0.1, 2 causal blocks (4 heads, MLP
    ratio 4), a final norm and a per-step dense head over the vocabulary."""

    def __init__(self, vocabulary, context=GPT_CONTEXT, width=64, depth=2, heads=4, mlp_ratio=4, dropout=0.1):
        super().__init__()
        self.tokens = nn.Embedding(vocabulary, width)
        self.positions = nn.Parameter(torch.randn(1, context, width) * 0.02)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.Sequential(*[Block(width, heads, mlp_ratio, True, dropout) for _ in range(depth)])
        self.norm = nn.LayerNorm(width, eps=1e-5)
        self.head = nn.Linear(width, vocabulary)

    def forward(self, ids):  # [mb, T]
        x = self.drop(self.tokens(ids) + self.positions[:, :ids.shape[1]])
        return self.head(self.norm(self.blocks(x)))  # [mb, T, vocabulary]


def conv_bn_relu(cin, cout):
    return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout, momentum=0.1, eps=1e-5), nn.ReLU()]


class ResNetStyle(nn.Module):
    """bench/ConvNetPeers.java's graph: six 3x3 convolutions without bias, each with batch norm (DL4J's momentum 0.9
    is PyTorch's 0.1) and relu, one residual add, two max pools, global average pooling, a 10-class head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(*conv_bn_relu(3, 64))
        self.block = nn.Sequential(*conv_bn_relu(64, 64), nn.Conv2d(64, 64, 3, padding=1, bias=False),
                                   nn.BatchNorm2d(64))
        self.rest = nn.Sequential(
            nn.MaxPool2d(2), *conv_bn_relu(64, 128), nn.MaxPool2d(2), *conv_bn_relu(128, 256),
            *conv_bn_relu(256, 256), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10))

    def forward(self, x):
        s = self.stem(x)
        return self.rest(torch.relu(self.block(s) + s))


class UNet(nn.Module):
    """sample-configs/shapes-unet.json: 3x3 convolutions with bias and relu ("same" padding), two 2x2 max pools, two
    nearest x2 upsamplings each joined to the encoder's features along the channels (upsampled first), a 1x1
    convolution to 3 classes (TrainDeck's segmentation head) and a per-pixel softmax loss: 118,019 parameters."""

    def __init__(self, classes=3):
        super().__init__()

        def pair(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())

        self.enc1, self.enc2, self.bottom = pair(1, 16), pair(16, 32), pair(32, 64)
        self.dec2, self.dec1 = pair(96, 32), pair(48, 16)
        self.pool, self.up = nn.MaxPool2d(2), nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):  # [mb, 1, 32, 32] -> [mb, classes, 32, 32]
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottom(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up(b), e2], dim=1))
        return self.head(self.dec1(torch.cat([self.up(d2), e1], dim=1)))


class UNetDeconv(UNet):
    """bench/ConvSampleNets.unetDeconv: shapes-unet.json's U-Net with each upsampling a 2x2 stride-2 ConvTranspose2d to
    half the channels (no activation), joined to the encoder's features (up-sampled first): 116,787 parameters."""

    def __init__(self, classes=3):
        super().__init__(classes)

        def pair(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())

        self.dec2, self.dec1 = pair(64, 32), pair(32, 16)
        self.up2, self.up1 = nn.ConvTranspose2d(64, 32, 2, stride=2), nn.ConvTranspose2d(32, 16, 2, stride=2)

    def forward(self, x):  # [mb, 1, 32, 32] -> [mb, classes, 32, 32]
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottom(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        return self.head(self.dec1(torch.cat([self.up1(d2), e1], dim=1)))


class UNetLevels(nn.Module):
    """bench/LargeConvNets.unet128: the classic U-Net's levels (64, 128, 256, 512 channels, each two 3x3 convolutions
    with bias and relu, then a 2x2 max pool) and a 1024-channel bottleneck; on the way up a nearest x2 upsampling joined
    to the level's features along the channels (upsampled first) and two convolutions to the level's width, as
    shapes-unet.json does; a 1x1 convolution to the classes, a per-pixel softmax loss: 31,377,858 parameters (2 classes)."""

    def __init__(self, widths=(64, 128, 256, 512, 1024), classes=2):
        super().__init__()

        def pair(cin, cout):
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())

        ins = (1,) + tuple(widths[:-1])
        self.down = nn.ModuleList(pair(cin, cout) for cin, cout in zip(ins[:-1], widths[:-1]))
        self.bottom = pair(widths[-2], widths[-1])
        self.ups = nn.ModuleList(pair(below + width, width)
                                 for below, width in zip(widths[:0:-1], widths[-2::-1]))
        self.pool, self.up = nn.MaxPool2d(2), nn.Upsample(scale_factor=2, mode="nearest")
        self.head = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):  # [mb, 1, size, size] -> [mb, classes, size, size]
        skips = []
        for level in self.down:
            x = level(x)
            skips.append(x)
            x = self.pool(x)
        x = self.bottom(x)
        for level, skip in zip(self.ups, reversed(skips)):
            x = level(torch.cat([self.up(x), skip], dim=1))
        return self.head(x)


class Autoencoder3d(nn.Module):
    """sample-configs/volumes-autoencoder.json: 3x3x3 convolutions with bias and relu ("same" padding), a 2x2x2 max
    pool, a nearest x2 upsampling, and TrainDeck's reconstruction head (a 1x1x1 convolution, identity, mean squared
    error): 17,797 parameters."""

    def __init__(self):
        super().__init__()

        def conv(cin, cout):
            return [nn.Conv3d(cin, cout, 3, padding=1), nn.ReLU()]

        self.net = nn.Sequential(*conv(1, 16), *conv(16, 16), nn.MaxPool3d(2), *conv(16, 4),
                                 nn.Upsample(scale_factor=2, mode="nearest"), *conv(4, 16), *conv(16, 16),
                                 nn.Conv3d(16, 1, 1))

    def forward(self, x):
        return self.net(x)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                                  nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout))
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return torch.relu(self.body(x) + self.shortcut(x))


class ResNet18(nn.Module):
    """bench/ConvSampleNets.resnet18: CIFAR's ResNet-18 (3x3 stem of 64, stages of 64-512 channels, 1x1 projections),
    global average pooling, a 10-class head: 11,173,962 trained parameters."""

    def __init__(self, classes=10):
        super().__init__()
        layers = [nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU()]
        cin = 64
        for stage, cout in enumerate([64, 128, 256, 512]):
            for block in range(2):
                layers.append(BasicBlock(cin, cout, 2 if stage > 0 and block == 0 else 1))
                cin = cout
        self.features = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(512, classes)

    def forward(self, x):
        return self.head(self.features(x))


def text_windows(path, context=GPT_CONTEXT, limit=GPT_WINDOWS):
    """As TrainDeck's TextReader: the distinct characters sorted by code point, windows of the context every stride
    characters (the first `limit` of them), targets one character later."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    if text.startswith("\ufeff"):
        text = text[1:]
    vocabulary = sorted(set(text))
    index = {ch: i for i, ch in enumerate(vocabulary)}
    ids = torch.tensor([index[ch] for ch in text])
    windows = min(limit, (len(ids) - context - 1) // GPT_STRIDE + 1)
    starts = torch.arange(windows) * GPT_STRIDE
    offsets = torch.arange(context)
    x = ids[starts[:, None] + offsets]
    y = ids[starts[:, None] + offsets + 1]
    return len(vocabulary), x, y


def model_and_data(kind, text=None, samples=0):
    torch.manual_seed(1)
    if kind == "mlp":
        net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
        x = torch.randn(samples or 8192, 784)
        batch = 128
    elif kind == "lenet":
        net = nn.Sequential(
            nn.Conv2d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(16 * 7 * 7, 64), nn.ReLU(), nn.Linear(64, 10))
        x = torch.rand(samples or 2048, 1, 28, 28)
        batch = 64
    elif kind == "lenet-large":
        net = nn.Sequential(
            nn.Conv2d(1, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(20, 50, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(50 * 7 * 7, 500), nn.ReLU(), nn.Linear(500, 10))
        x = torch.rand(samples or 1024, 1, 28, 28)
        batch = 64
    elif kind == "resnet":
        net = ResNetStyle()
        x = torch.rand(samples or 512, 3, 32, 32)
        batch = 64
    elif kind == "unet":
        # per-pixel classes as the shapes data's masks; random images of its size (1,200 of 32x32x1)
        net = UNet()
        x = torch.rand(samples or 1200, 1, 32, 32)
        return net, x, torch.randint(0, 3, (x.shape[0], 32, 32)), 32
    elif kind == "unet-deconv":
        x = torch.rand(samples or 1200, 1, 32, 32)
        return UNetDeconv(), x, torch.randint(0, 3, (x.shape[0], 32, 32)), 32
    elif kind == "volumes":
        # reconstruction: the targets are the inputs (600 volumes of 16^3, the sample's data size)
        x = torch.rand(samples or 600, 1, 16, 16, 16)
        return Autoencoder3d(), x, x, 16
    elif kind == "unet128":
        # the lithography simulator's size: per-pixel classes of random 128x128x1 images (8 of them, batch 4)
        x = torch.rand(samples or 8, 1, 128, 128)
        return UNetLevels(), x, torch.randint(0, 2, (x.shape[0], 128, 128)), 4
    elif kind == "volumes64":
        # the volumes sample's network at the 4xA100 guide's first stage size: 8 volumes of 64^3, batch 4
        x = torch.rand(samples or 8, 1, 64, 64, 64)
        return Autoencoder3d(), x, x, 4
    elif kind == "resnet18":
        net = ResNet18()
        x = torch.rand(samples or 256, 3, 32, 32)
        batch = 64
    elif kind == "vit":
        net = Vit()
        x = torch.rand(samples or VIT_SAMPLES, 1, 28, 28)
        batch = 64
    elif kind == "gpt":
        vocabulary, x, y = text_windows(text, limit=samples or GPT_WINDOWS)
        return Gpt(vocabulary), x, y, 32
    elif kind == "vit-ws":
        # bench/TransformerNets.vitWorkstation: width 192, 6 blocks of 3 heads, MLP ratio 4, 32x32x3 in 4x4 patches
        net = Vit(patch=4, width=192, depth=6, heads=3, mlp_ratio=4, image=32, classes=10, channels=3)
        x = torch.rand(samples, 3, 32, 32)
        batch = 64
    elif kind == "gpt-ws":
        # bench/TransformerNets.gptWorkstation: width 256, 4 causal blocks of 8 heads, MLP ratio 4, context 128
        vocabulary, x, y = text_windows(text, context=128, limit=samples)
        return Gpt(vocabulary, context=128, width=256, depth=4, heads=8, mlp_ratio=4, dropout=0.1), x, y, 16
    else:
        raise SystemExit("unknown model " + kind)
    y = torch.randint(0, 10, (x.shape[0],))
    return net, x, y, batch


def step(net, opt, kind, x, y):
    """One optimizer step on (x, y); returns the loss."""
    opt.zero_grad()
    out = net(x)
    if kind in RECONSTRUCTION or out.dim() == 4:  # reconstruction, per-pixel classes [mb, classes, h, w]
        loss = (nn.MSELoss() if kind in RECONSTRUCTION else nn.CrossEntropyLoss())(out, y)
    else:
        loss = nn.CrossEntropyLoss()(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    loss.backward()
    opt.step()
    return loss


def train(rank, kind, epochs, repeats, batch_override, text, samples):
    """The measured epochs' samples/s of the global batch, once per repeat (rank 0 prints)."""
    for repeat in range(repeats):
        net, x, y, batch = model_and_data(kind, text, samples)
        batch = batch_override or batch
        if repeat == 0:
            rank.report("parameters %d" % sum(p.numel() for p in net.parameters()))
        net.train()
        model = rank.wrap(net)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        measured = 0.0
        for epoch in range(epochs):
            start = time.perf_counter()
            order = torch.randperm(x.shape[0])
            for i in range(0, x.shape[0], batch):
                idx = rank.share(order[i:i + batch])
                step(model, opt, kind, x[idx], y[idx])
            if epoch > 0:
                measured += time.perf_counter() - start
        rank.report("samples_per_s %.4g" % (x.shape[0] * (epochs - 1) / measured))


def trace(rank, kind, steps, batch_override):
    """The global batch's loss after each of the first `steps` steps (dropout-free models: the same training in every
    setting), printed as "loss STEP VALUE"."""
    net, x, y, batch = model_and_data(kind)
    batch = batch_override or batch
    net.train()
    model = rank.wrap(net)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    order = torch.randperm(x.shape[0])
    for s in range(steps):
        start = (s * batch) % (x.shape[0] - batch + 1)
        idx = rank.share(order[start:start + batch])
        loss = rank.mean(step(model, opt, kind, x[idx], y[idx]).item())
        rank.report("loss %d %.9g" % (s + 1, loss))


def main():
    if sys.argv[1] == "trace":
        # trace KIND STEPS SETTING [BATCH]
        batch = int(sys.argv[5]) if len(sys.argv) > 5 else 0
        peer_launcher.launch(peer_launcher.parse(sys.argv[4]), trace, sys.argv[2], int(sys.argv[3]), batch)
        return
    kind, epochs, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    setting = peer_launcher.parse(sys.argv[4])
    batch_override = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    text = sys.argv[6] if len(sys.argv) > 6 and sys.argv[6] != "-" else None
    samples = int(sys.argv[7]) if len(sys.argv) > 7 else 0
    if kind == "xray16":
        diffusion = sys.argv[8] if len(sys.argv) > 8 else "cosine:1000:v"
        back = sys.argv[9] if len(sys.argv) > 9 and sys.argv[9] != "-" else None
        peer_launcher.launch(setting, volume_diffusion_peer.run, epochs, repeats, batch_override or 32, text, samples,
                             diffusion, back)
        return
    peer_launcher.launch(setting, train, kind, epochs, repeats, batch_override, text, samples)


if __name__ == "__main__":
    main()
