"""Where the x-ray cascade's stage-1 step goes outside its transformer blocks in PyTorch: volume_diffusion_peer.py's
network at the sample's shapes (batch 8, 16^3 volumes in 4^3 patches, width 64, two 32x32 views in 4x4 patches), each
piece outside the blocks alone (its forward, then its backward from a random output gradient; median thread CPU ms
of as many calls at one thread), the Adam step over all the parameters, and the batch making (t, noise, x_t and the
target, as the peer's step). TrainDeck's side of the same table: XrayStepPieces CONFIG [steps] (engine test scope).

    OMP_NUM_THREADS=1 python3 bench/src/main/python/volume_step_pieces.py [calls]
"""
import sys
import time

import torch

from volume_block_profile import median_ms, timed
from volume_diffusion_peer import VolumeDiffusionNet, alpha_bar, target

MB, VOLUME, VIEW = 8, 16, 32


def pieces(net):
    """Each piece outside the blocks as a function of leaf tensors of its input's shape, as the network computes it."""
    p, vp = net.patch, net.view_patch
    # the network's inputs are data: no gradient for them, as in the training step
    views = torch.rand(MB, 2, VIEW, VIEW)
    noisy = torch.randn(MB, 1, VOLUME, VOLUME, VOLUME)
    back = torch.rand(MB, 1, VOLUME, VOLUME, VOLUME)
    t = (torch.rand(MB, 1) * 1000).floor()
    tokens = torch.randn(MB, (VOLUME // p) ** 3, 64, requires_grad=True)
    out = torch.randn(MB, 1, VOLUME, VOLUME, VOLUME, requires_grad=True)
    label = torch.rand(MB, 1, VOLUME, VOLUME, VOLUME)

    def context():
        c = views.shape[1]
        cut = views.reshape(MB, c, VIEW // vp, vp, VIEW // vp, vp).permute(0, 2, 4, 1, 3, 5).reshape(MB, -1, c * vp * vp)
        return net.context_project(cut) + net.context_positions

    def timestep():
        args = t @ net.freqs
        features = torch.cat([args.cos(), args.sin()], dim=1)
        return net.time2(torch.nn.functional.silu(net.time1(features)))

    def volume_tokens():
        x = net.token_project(net.cubes(noisy)) + net.token_positions
        return x + net.back_project(net.cubes(back)) + net.back_positions

    def unpatch_and_head():
        patches = net.unpatch(tokens).reshape(MB, VOLUME // p, VOLUME // p, VOLUME // p, p, p, p)
        return net.head(patches.permute(0, 1, 4, 2, 5, 3, 6).reshape(MB, 1, VOLUME, VOLUME, VOLUME))

    return {
        "context: views cut in 4x4 patches, projected, positions": context,
        "timestep embedding (sinusoid, dense, SiLU, dense)": timestep,
        "volume tokens: two patches3d, positions, their sum": volume_tokens,
        "unpatch3d and the 1x1x1 head": unpatch_and_head,
        "loss (MSE over the volume)": lambda: torch.nn.functional.mse_loss(out, label).reshape(1),
    }


def optimizer_and_batch(net, calls):
    """Median ms of Adam's step over every parameter, and of making a batch (t, noise, x_t, target)."""
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for q in net.parameters():
        q.grad = torch.randn_like(q)
    levels = alpha_bar("cosine", 1000)
    x0 = torch.rand(MB, 1, VOLUME, VOLUME, VOLUME)
    adam, batch = [], []
    for i in range(2 * calls):
        t0 = time.thread_time()
        opt.step()
        t1 = time.thread_time()
        t = torch.randint(0, 1000, (MB,))
        a = levels[t].reshape(-1, 1, 1, 1, 1)
        eps = torch.randn_like(x0)
        noisy = a.sqrt() * x0 + (1 - a).sqrt() * eps
        goal = target("x0", x0, eps, a)
        t2 = time.thread_time()
        if i >= calls:
            adam.append(t1 - t0)
            batch.append(t2 - t1)
    assert noisy.shape == goal.shape
    return median_ms(adam), median_ms(batch)


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    torch.set_num_threads(1)
    torch.manual_seed(3)
    net = VolumeDiffusionNet(back_projection=True)
    print("xray stage 1 outside its blocks (median thread CPU ms of %d calls, torch %s, %d thread)"
          % (calls, torch.__version__, torch.get_num_threads()))
    for name, make in pieces(net).items():
        f, b = timed(make, calls)
        print("  %-55s forward %.3f  backward %.3f" % (name, f, b))
    adam, batch = optimizer_and_batch(net, calls)
    print("  %-55s %.3f" % ("Adam step (all %d parameters)" % sum(q.numel() for q in net.parameters()), adam))
    print("  %-55s %.3f" % ("batch making (t, noise, x_t, target)", batch))


if __name__ == "__main__":
    main()
