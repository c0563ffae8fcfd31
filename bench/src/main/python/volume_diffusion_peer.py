"""The "xray16" peer of bench/src/main/python/pytorch_peer.py: stage 1 ("volume16") of
sample-configs/xray-volume-cascade.json in PyTorch, node for node as TrainDeck builds it, trained as TrainDeck's
diffusion task trains it (bench/VolumeDiffusionPeer.stage1).

The network: the two views (front, side: [32, 32] each) concatenated as channels and cut into 4x4 patches projected to
64 with learned positions (the context tokens); the timestep's sinusoidal features (64) -> dense 64 -> SiLU -> dense 64
(the condition); the noisy 16^3 volume cut into 4^3 patches projected to 64 with learned 3D positions; 4 pre-norm
blocks (4 heads, MLP ratio 4, DL4J's sigmoid GELU) with adaLN-Zero (SiLU(condition) -> [6 x 64]: shift, scale and
gate of the self-attention branch, then of the MLP branch; norms keep their own gain and bias) and an ungated pre-norm
cross-attention to the context tokens between the self-attention and the MLP; unpatch3d (each token projected to its
4^3 patch); the 1x1x1 Convolution3D head TrainDeck appends; MSE against the v target.

A step as TrainDeck's DiffusionDraws: per example t uniform in [0, timesteps) and Gaussian noise, the schedule's
alpha-bar (NoiseSchedule's linear or cosine), x_t = sqrt(a) x0 + sqrt(1 - a) eps fed with t (as a number) to the
network, the sample's prediction as the target (Prediction: eps, v = sqrt(a) eps - sqrt(1 - a) x0, or x0).
"""
import math
import time

import numpy as np
import torch
from torch import nn

WIDTH = 64


class SigmoidGelu(nn.Module):
    """DL4J's and TrainDeck's GELU: x * sigmoid(1.702 x)."""

    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


def alpha_bar(schedule, steps, offset=0.008):
    """As TrainDeck's NoiseSchedule: DDPM's linear betas (1e-4 to 0.02), or the cosine ones (diffusers'
    squaredcos_cap_v2, capped at 0.999); their running product."""
    def f(fraction):
        return math.cos((fraction + offset) / (1 + offset) * math.pi / 2) ** 2

    if schedule == "cosine":
        betas = [min(1 - f((t + 1) / steps) / f(t / steps), 0.999) for t in range(steps)]
    else:
        betas = [1e-4 + (0.02 - 1e-4) * t / max(1, steps - 1) for t in range(steps)]
    return torch.tensor(np.cumprod([1 - b for b in betas]), dtype=torch.float32)


def target(prediction, x0, eps, a):
    """The training target, as TrainDeck's Prediction.target."""
    if prediction == "epsilon":
        return eps
    if prediction == "x0":
        return x0
    return a.sqrt() * eps - (1 - a).sqrt() * x0


def attend(q, k, v, heads):
    """Multi-head attention of q [mb, T, W] over k, v [mb, S, W]: softmax(Q K^T / sqrt(d)) V, heads batched."""
    mb, t, width = q.shape
    s = k.shape[1]
    d = width // heads
    q = q.reshape(mb, t, heads, d).transpose(1, 2)
    k = k.reshape(mb, s, heads, d).transpose(1, 2)
    v = v.reshape(mb, s, heads, d).transpose(1, 2)
    scores = (q / math.sqrt(d)) @ k.transpose(-2, -1)
    return (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(mb, t, width)


class ConditionedBlock(nn.Module):
    """TransformerBlock with "condition" and "context": TransformerBlockLayer, -Modulation, -CrossAttention."""

    def __init__(self, width=WIDTH, heads=4, mlp_ratio=4, condition=WIDTH):
        super().__init__()
        self.heads, self.width = heads, width
        self.norm1, self.norm2 = nn.LayerNorm(width, eps=1e-5), nn.LayerNorm(width, eps=1e-5)
        self.qkv, self.out = nn.Linear(width, 3 * width), nn.Linear(width, width)
        hidden = round(width * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(width, hidden), SigmoidGelu(), nn.Linear(hidden, width))
        self.modulation = nn.Linear(condition, 6 * width)
        nn.init.zeros_(self.modulation.weight)
        nn.init.zeros_(self.modulation.bias)
        self.norm_cross = nn.LayerNorm(width, eps=1e-5)
        # one [W, 3W] projection as TrainDeck's: queries from the normed tokens, keys and values from the context
        self.cross_qkv, self.cross_out = nn.Linear(width, 3 * width), nn.Linear(width, width)

    def forward(self, x, condition, context):
        mb, t, w = x.shape
        m = self.modulation(torch.nn.functional.silu(condition)).reshape(mb, 1, 6, w)
        shift1, scale1, gate1, shift2, scale2, gate2 = m.unbind(dim=2)
        h = self.norm1(x) * (1 + scale1) + shift1
        q, k, v = self.qkv(h).split(w, dim=-1)
        x = x + gate1 * self.out(attend(q, k, v, self.heads))
        hq = self.norm_cross(x)
        q = hq @ self.cross_qkv.weight[:w].t() + self.cross_qkv.bias[:w]
        kv = context @ self.cross_qkv.weight[w:].t() + self.cross_qkv.bias[w:]
        k, v = kv.split(w, dim=-1)
        x = x + self.cross_out(attend(q, k, v, self.heads))
        h = self.norm2(x) * (1 + scale2) + shift2
        return x + gate2 * self.mlp(h)


class VolumeDiffusionNet(nn.Module):
    """sample-configs/xray-volume-cascade.json's top-level model (stage "volume16") with TrainDeck's head."""

    def __init__(self, volume=16, patch=4, view=32, view_patch=4, width=WIDTH, depth=4, heads=4, frequencies=64,
                 back_projection=False):
        super().__init__()
        self.patch, self.view_patch, self.frequencies = patch, view_patch, frequencies
        self.context_project = nn.Linear(2 * view_patch * view_patch, width)
        self.context_positions = nn.Parameter(torch.randn(1, (view // view_patch) ** 2, width) * 0.02)
        self.time1, self.time2 = nn.Linear(frequencies, width), nn.Linear(width, width)
        self.token_project = nn.Linear(patch ** 3, width)
        self.token_positions = nn.Parameter(torch.randn(1, (volume // patch) ** 3, width) * 0.02)
        if back_projection:
            # a second patches3d on the views' back-projection, added to the noisy volume's tokens
            self.back_project = nn.Linear(patch ** 3, width)
            self.back_positions = nn.Parameter(torch.randn(1, (volume // patch) ** 3, width) * 0.02)
        self.back_projection = back_projection
        self.blocks = nn.ModuleList([ConditionedBlock(width, heads) for _ in range(depth)])
        self.unpatch = nn.Linear(width, patch ** 3)
        self.head = nn.Conv3d(1, 1, 1)
        half = frequencies // 2
        self.register_buffer("freqs", torch.exp(-math.log(10000) * torch.arange(half) / half).reshape(1, half))

    def cubes(self, volume):
        mb, _, d, h, w = volume.shape
        p = self.patch
        return volume.reshape(mb, d // p, p, h // p, p, w // p, p).permute(0, 1, 3, 5, 2, 4, 6).reshape(mb, -1, p ** 3)

    def forward(self, noisy, timestep, views, back=None):  # [mb, 1, D, H, W], [mb, 1], [mb, 2, 32, 32], as noisy
        mb, _, d, h, w = noisy.shape
        p, vp = self.patch, self.view_patch
        _, c, vh, vw = views.shape
        cut = views.reshape(mb, c, vh // vp, vp, vw // vp, vp).permute(0, 2, 4, 1, 3, 5).reshape(mb, -1, c * vp * vp)
        context = self.context_project(cut) + self.context_positions
        args = timestep @ self.freqs
        condition = self.time2(torch.nn.functional.silu(self.time1(torch.cat([args.cos(), args.sin()], dim=1))))
        x = self.token_project(self.cubes(noisy)) + self.token_positions
        if self.back_projection:
            x = x + self.back_project(self.cubes(back)) + self.back_positions
        for block in self.blocks:
            x = block(x, condition, context)
        patches = self.unpatch(x).reshape(mb, d // p, h // p, w // p, p, p, p)
        out = patches.permute(0, 1, 4, 2, 5, 3, 6).reshape(mb, 1, d, h, w)
        return self.head(out)


def volumes_of(z, key):
    return torch.from_numpy(z[key].astype(np.float32) / 255).permute(0, 4, 1, 2, 3).contiguous()


def load(path, back_key):
    """The sample's training set as TrainDeck reads it: uint8 x 1/255, channels first; the back-projection or None."""
    with np.load(path, allow_pickle=False) as z:
        volumes = volumes_of(z, "volume16")
        views = np.concatenate([z["front"], z["side"]], axis=-1).astype(np.float32) / 255
        back = volumes_of(z, back_key) if back_key else None
        return volumes, torch.from_numpy(views).permute(0, 3, 1, 2).contiguous(), back


def run(rank, epochs, repeats, batch, path, samples, diffusion="cosine:1000:v", back_key=None):
    """rank: this process's place (peer_launcher.Rank: its share of each global batch; rank 0 reports); diffusion:
    the sample's schedule, timesteps and prediction, as "cosine:1000:v"; back_key: the .npz array of the
    back-projection input (None: the model has none)."""
    schedule, timesteps, prediction = diffusion.split(":")
    timesteps = int(timesteps)
    volumes, views, back = load(path, back_key)
    if samples:
        volumes, views = volumes[:samples], views[:samples]
        back = back[:samples] if back is not None else None
    levels = alpha_bar(schedule, timesteps)
    n = volumes.shape[0]
    for repeat in range(repeats):
        torch.manual_seed(1)
        net = VolumeDiffusionNet(back_projection=back is not None)
        if repeat == 0:
            rank.report("parameters %d" % sum(p.numel() for p in net.parameters()))
        net.train()
        model = rank.wrap(net)
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        measured = 0.0
        for epoch in range(epochs):
            start = time.perf_counter()
            order = torch.randperm(n)
            for i in range(0, n, batch):
                idx = rank.share(order[i:i + batch])
                x0 = volumes[idx]
                t = torch.randint(0, timesteps, (x0.shape[0],))
                a = levels[t].reshape(-1, 1, 1, 1, 1)
                eps = torch.randn_like(x0)
                noisy = a.sqrt() * x0 + (1 - a).sqrt() * eps
                opt.zero_grad()
                out = model(noisy, t.float().reshape(-1, 1), views[idx], back[idx] if back is not None else None)
                loss = torch.nn.functional.mse_loss(out, target(prediction, x0, eps, a))
                loss.backward()
                opt.step()
            if epoch > 0:
                measured += time.perf_counter() - start
        rank.report("samples_per_s %.1f" % (n * (epochs - 1) / measured))
