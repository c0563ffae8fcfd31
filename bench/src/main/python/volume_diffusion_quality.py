"""What stage 1 of sample-configs/xray-volume-cascade.json reaches in PyTorch: volume_diffusion_peer.py's network trained
as the sample trains it, then sampled and scored as TrainDeck's validation samples and scores it, so that TrainDeck's
figures for x0- and v-prediction have a peer (docs/configs.md, "The x-ray sample").

Training as the sample's stage "volume16": batch 8 in a fresh order each epoch, Adam (1e-3, betas 0.9/0.999, eps 1e-8),
warmupCosine (a linear warmup over the first epoch from lr/warmup, then a cosine to 0 at the last step: LrSchedule), an
EMA of the weights (decay 0.99, starting as a copy, updated after every step: WeightEma), MSE on the prediction's
target. Each example's t and noise as DiffusionDraws (t uniform in [0, T), Gaussian noise; drawn here from torch's
generator seeded once by the run's seed). With "minSnr" each example's squared error is weighted as Prediction's
minSnrWeight (gamma 5).

Sampling as DiffusionSampler with the EMA weights: DDIM eta = 0 over `steps` timesteps round((n-1-k)(T-1)/(n-1)), the
starting noise seeded by the seed and the example, the x0 estimate clipped to [-1, 1], eps from the clipped x0.
Scores as SampleScores over the first `count` validation volumes: PSNR 10 log10(R^2 / MSE) with R the true volumes'
range, and the projection error: the mean absolute difference between the volume's means along height and width and
the front and side views (average-pooled 2 x 2 to 16^2), the two views weighing the same.

usage: volume_diffusion_quality.py TRAIN.npz TEST.npz PREDICTION(x0|v|epsilon) SEED [STEPS] [WEIGHTING] [EVERY] [DATA]
  STEPS optimizer steps (1000: 10 epochs of the 800 phantoms); WEIGHTING none, minSnr, or x0 (each example's error
  weighted to be its clean volume's error whatever is predicted: 1 - a for v, SNR for epsilon); EVERY steps between
  scorings (500); DATA unit (the sample's volumes in [0, 1]) or signed (mapped to [-1, 1] to train and sample).
  Prints the EMA's PSNR and projection error at each scoring, and at the end the error of its one-step x0 estimate
  by timestep. Run with the OpenBLAS ND4J ships preloaded where PyTorch has only the reference BLAS
  (docs/benchmarks.md): LD_PRELOAD=.../libopenblas.so.0 OPENBLAS_NUM_THREADS=1.
"""
import copy
import math
import sys
import time

import torch

from volume_diffusion_peer import VolumeDiffusionNet, alpha_bar, load, target

BATCH = 8
LEARNING_RATE = 1e-3
EMA_DECAY = 0.99
SAMPLING_STEPS = 25
SAMPLED = 16
MIN_SNR_GAMMA = 5.0
CLIP = 1.0


def learning_rate(step, total, warmup):
    """LrSchedule's warmupCosine at the 0-based step."""
    if step < warmup:
        return LEARNING_RATE * (step + 1) / warmup
    decay = total - warmup
    progress = min(1.0, (step - warmup) / (decay - 1))
    return 0.5 * LEARNING_RATE * (1 + math.cos(math.pi * progress))


def x0_of(prediction, out, xt, a):
    """Prediction.x0: the clean volume the network's output implies at x_t."""
    if prediction == "epsilon":
        return (xt - (1 - a).sqrt() * out) / a.sqrt()
    if prediction == "x0":
        return out
    return a.sqrt() * xt - (1 - a).sqrt() * out


def min_snr_weight(prediction, a):
    snr = a / (1 - a)
    clipped = snr.clamp(max=MIN_SNR_GAMMA)
    if prediction == "epsilon":
        return clipped / snr
    if prediction == "x0":
        return clipped
    return clipped / (snr + 1)


def x0_weight(prediction, a):
    """The weight that makes each example's squared error its clean volume's squared error: 1 - a for v, SNR for eps."""
    if prediction == "epsilon":
        return a / (1 - a)
    if prediction == "x0":
        return torch.ones_like(a)
    return 1 - a


@torch.no_grad()
def ddim(net, levels, prediction, views, back, seed, steps=SAMPLING_STEPS):
    """DiffusionSampler's DDIM (eta 0) from each example's own starting noise."""
    n = views.shape[0]
    last = levels.shape[0] - 1
    ts = [round((steps - 1 - k) * last / (steps - 1)) for k in range(steps)]
    x = torch.stack([torch.randn(*back.shape[1:], generator=torch.Generator().manual_seed(seed * 1000 + i))
                     for i in range(n)])
    for k, t in enumerate(ts):
        a = levels[t]
        previous = levels[ts[k + 1]] if k + 1 < len(ts) else torch.tensor(1.0)
        out = net(x, torch.full((n, 1), float(t)), views, back)
        x0 = x0_of(prediction, out, x, a).clamp(-CLIP, CLIP)
        eps = (x - a.sqrt() * x0) / (1 - a).sqrt()
        x = previous.sqrt() * x0 + (1 - previous).sqrt() * eps
    return x


def scores(generated, truth, views):
    """SampleScores' PSNR (range of the true volumes) and projection error against the views pooled to 16^2."""
    mse = float(((generated - truth) ** 2).mean())
    spread = float(truth.max() - truth.min()) or 1.0
    pooled = torch.nn.functional.avg_pool2d(views, 2)
    front = (generated.mean(dim=3)[:, 0] - pooled[:, 0]).abs().mean()
    side = (generated.mean(dim=4)[:, 0] - pooled[:, 1]).abs().mean()
    return 10 * math.log10(spread ** 2 / mse), float(front + side) / 2


@torch.no_grad()
def denoising_errors(net, levels, prediction, volumes, views, back, signed, ts=(999, 900, 750, 500, 250, 100, 20)):
    """The clean volume's estimate from one step at each t (fixed noise), its mean squared error in the data's units."""
    errors = []
    truth = volumes * 2 - 1 if signed else volumes
    for t in ts:
        eps = torch.randn(truth.shape, generator=torch.Generator().manual_seed(t))
        a = levels[t]
        xt = a.sqrt() * truth + (1 - a).sqrt() * eps
        x0 = x0_of(prediction, net(xt, torch.full((truth.shape[0], 1), float(t)), views, back), xt, a)
        errors.append("t %d %.4f" % (t, float(((x0 - truth) ** 2).mean()) / (4 if signed else 1)))
    return ", ".join(errors)


def train(train_path, test_path, prediction, seed, total, weighting, every, signed):
    """signed: the volumes generated in [-1, 1] (2 x - 1) rather than the sample's [0, 1], scored back in [0, 1]."""
    volumes, views, back = load(train_path, "backprojection16")
    test_volumes, test_views, test_back = (a[:SAMPLED] for a in load(test_path, "backprojection16"))
    if signed:
        volumes = volumes * 2 - 1
    levels = alpha_bar("cosine", 1000)
    torch.manual_seed(seed)
    net = VolumeDiffusionNet(back_projection=True)
    ema = copy.deepcopy(net)
    opt = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE)
    n = volumes.shape[0]
    per_epoch = n // BATCH
    step, start = 0, time.perf_counter()
    while step < total:
        order = torch.randperm(n)
        for i in range(0, per_epoch * BATCH, BATCH):
            idx = order[i:i + BATCH]
            x0 = volumes[idx]
            t = torch.randint(0, levels.shape[0], (BATCH,))
            a = levels[t].reshape(-1, 1, 1, 1, 1)
            eps = torch.randn_like(x0)
            out = net(a.sqrt() * x0 + (1 - a).sqrt() * eps, t.float().reshape(-1, 1), views[idx], back[idx])
            error = ((out - target(prediction, x0, eps, a)) ** 2).mean(dim=(1, 2, 3, 4))
            if weighting == "minSnr":
                error = error * min_snr_weight(prediction, levels[t])
            elif weighting == "x0":
                error = error * x0_weight(prediction, levels[t])
            for group in opt.param_groups:
                group["lr"] = learning_rate(step, total, per_epoch)
            opt.zero_grad()
            error.mean().backward()
            opt.step()
            with torch.no_grad():
                for e, p in zip(ema.parameters(), net.parameters()):
                    e.mul_(EMA_DECAY).add_(p, alpha=1 - EMA_DECAY)
            step += 1
            if step % every == 0 or step == total:
                generated = ddim(ema, levels, prediction, test_views, test_back, seed)
                if signed:
                    generated = (generated + 1) / 2
                psnr, projection = scores(generated, test_volumes, test_views)
                print("%s seed %d step %d psnr %.2f projection_error %.4f (%.0f s)"
                      % (prediction, seed, step, psnr, projection, time.perf_counter() - start), flush=True)
            if step == total:
                print("x0 error by timestep: " + denoising_errors(
                    ema, levels, prediction, test_volumes, test_views, test_back, signed), flush=True)
                return


if __name__ == "__main__":
    torch.set_num_threads(1)
    args = sys.argv[1:]
    train(args[0], args[1], args[2], int(args[3]), int(args[4]) if len(args) > 4 else 1000,
          args[5] if len(args) > 5 else "none", int(args[6]) if len(args) > 6 else 500,
          len(args) > 7 and args[7] == "signed")
