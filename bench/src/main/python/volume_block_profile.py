"""Where one block of the x-ray cascade's stage 1 spends its time in PyTorch: volume_diffusion_peer.py's
ConditionedBlock at the sample's shapes (batch 8, 64 volume tokens, width 64, 4 heads, MLP ratio 4, a 64-wide
condition, 64 context tokens), the whole block forward and backward, then each piece alone (its forward, then its
backward from a random output gradient), median thread CPU time per call at one thread; the whole step of the peer's
network with and without its blocks; and torch.profiler's table of the block's operators. TrainDeck's side of the same table: TransformerBlockTiming [calls] xray (engine test scope).

    OMP_NUM_THREADS=1 python3 bench/src/main/python/volume_block_profile.py [calls]
"""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

from volume_diffusion_peer import ConditionedBlock, VolumeDiffusionNet, attend

MB, STEPS, WIDTH, HEADS, CONTEXT = 8, 64, 64, 4, 64


def median_ms(values):
    s = sorted(values)
    return 1e3 * (s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2)


def timed(make, calls):
    """make() -> a tensor; the median thread CPU ms of its forward and of its backward (from a random gradient)."""
    forward, backward = [], []
    for i in range(2 * calls):
        t0 = time.thread_time()
        out = make()
        t1 = time.thread_time()
        grad = torch.randn_like(out)
        t2 = time.thread_time()
        out.backward(grad)
        t3 = time.thread_time()
        if i >= calls:
            forward.append(t1 - t0)
            backward.append(t3 - t2)
    return median_ms(forward), median_ms(backward)


def pieces(block, x, condition, context):
    """Each piece as a function of leaf tensors of its input's shape, as the block computes it."""
    w = WIDTH
    h = torch.randn(MB, STEPS, w, requires_grad=True)
    u = torch.randn(MB, STEPS, 4 * w, requires_grad=True)
    vecs = torch.randn(MB, 1, w, requires_grad=True)
    q, k, v = (torch.randn(MB, STEPS, w, requires_grad=True) for _ in range(3))
    mlp1, gelu, mlp2 = block.mlp
    return {
        "self-attention heads": lambda: attend(q, k, v, HEADS),
        "cross-attention (norm, projections, heads, output)": lambda: cross(block, h, context),
        "adaLN vectors (SiLU, [8,64]x[64,384])": lambda: block.modulation(torch.nn.functional.silu(condition)),
        "adaLN modulate (one norm)": lambda: h * (1 + vecs) + vecs,
        "adaLN gated residual (one branch)": lambda: x + vecs * h,
        "layer norm (one)": lambda: block.norm1(h),
        "GELU": lambda: gelu(u),
        "products qkv, out, mlp1, mlp2": lambda: (
            block.qkv(h).sum() + block.out(h).sum() + mlp2(mlp1(h)).sum()).reshape(1),
    }


def cross(block, x, context):
    w = WIDTH
    hq = block.norm_cross(x)
    q = hq @ block.cross_qkv.weight[:w].t() + block.cross_qkv.bias[:w]
    kv = context @ block.cross_qkv.weight[w:].t() + block.cross_qkv.bias[w:]
    k, v = kv.split(w, dim=-1)
    return x + block.cross_out(attend(q, k, v, HEADS))


def step_split(calls):
    """The peer's whole training step (batch 8, Adam) with and without its four blocks, alternated: median ms of each."""
    torch.manual_seed(1)
    net = VolumeDiffusionNet(back_projection=True)
    blocks, none = net.blocks, torch.nn.ModuleList()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    noisy, back = torch.randn(MB, 1, 16, 16, 16), torch.randn(MB, 1, 16, 16, 16)
    views, t = torch.randn(MB, 2, 32, 32), torch.rand(MB, 1) * 1000
    times = {True: [], False: []}
    for i in range(4 * calls):
        with_blocks = i % 2 == 0
        net.blocks = blocks if with_blocks else none
        t0 = time.thread_time()
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(noisy, t, views, back), noisy).backward()
        opt.step()
        if i >= 2 * calls:
            times[with_blocks].append(time.thread_time() - t0)
    whole, rest = median_ms(times[True]), median_ms(times[False])
    print("xray step (ms): %.2f, without its blocks %.2f: the four blocks and their Adam %.2f"
          % (whole, rest, whole - rest))


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    torch.set_num_threads(1)
    torch.manual_seed(3)
    block = ConditionedBlock(WIDTH, HEADS)
    # adaLN-Zero starts at zero; random weights make the numbers those of a trained block (as TrainDeck's timing)
    torch.nn.init.normal_(block.modulation.weight, std=0.05)
    x = torch.randn(MB, STEPS, WIDTH, requires_grad=True)
    condition = torch.randn(MB, WIDTH, requires_grad=True)
    context = torch.randn(MB, CONTEXT, WIDTH, requires_grad=True)
    f, b = timed(lambda: block(x, condition, context), calls)
    print("xray block (ms): forward %.3f, backward %.3f (median thread CPU of %d calls, torch %s, %d thread)"
          % (f, b, calls, torch.__version__, torch.get_num_threads()))
    for name, make in pieces(block, x, condition, context).items():
        f, b = timed(make, calls)
        print("  %-55s forward %.3f  backward %.3f" % (name, f, b))
    step_split(calls)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(calls):
            block(x, condition, context).backward(torch.randn(MB, STEPS, WIDTH))
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))


if __name__ == "__main__":
    main()
