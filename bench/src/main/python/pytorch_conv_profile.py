"""Each convolution's forward and backward thread CPU time inside PyTorch's training step (pytorch_peer.py's
networks, Adam, one thread): module hooks around the forward pass; in the backward pass, from the moment the
convolution's output gradient is ready to the moment its weight gradient is, which is one
convolution_backward node. The peer of `ConvStepTiming unet N profile`.
usage: pytorch_conv_profile.py [unet|resnet18|unet128] [STEPS] [plain]  (plain: no hooks, the step alone)"""
import sys
import time

import torch
from torch import nn

import pytorch_peer


def timed(net):
    """Hooks on every Conv2d; returns {name: [forward ms list, backward ms list]}."""
    times = {}
    for name, conv in net.named_modules():
        if not isinstance(conv, nn.Conv2d):
            continue
        entry = times.setdefault(name, [[], [], {}])

        def pre(module, args, entry=entry):
            entry[2]["f"] = time.thread_time()

        def post(module, args, out, entry=entry):
            entry[0].append((time.thread_time() - entry[2]["f"]) * 1e3)
            out.register_hook(lambda g, entry=entry: entry[2].__setitem__("b", time.thread_time()))

        def weight_done(g, entry=entry):
            entry[1].append((time.thread_time() - entry[2]["b"]) * 1e3)

        conv.register_forward_pre_hook(pre)
        conv.register_forward_hook(post)
        conv.weight.register_hook(weight_done)
    return times


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "unet"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net, x, y, batch = pytorch_peer.model_and_data(kind)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    times = {} if len(sys.argv) > 3 and sys.argv[3] == "plain" else timed(net)
    step_ms = []
    for s in range(steps + 3):
        t0 = time.thread_time()
        pytorch_peer.step(net, opt, kind, x[:batch], y[:batch])
        step_ms.append((time.thread_time() - t0) * 1e3)
    median = lambda a: sorted(a[3:])[len(a[3:]) // 2]
    fwd = bwd = 0.0
    for name, (f, b, _) in times.items():
        fwd += median(f)
        bwd += median(b)
        print("%-22s fwd %8.3f bwd %8.3f ms" % (name, median(f), median(b)))
    print("convolutions fwd %.2f bwd %.2f ms; step %.2f ms (medians of %d, thread CPU)"
          % (fwd, bwd, median(step_ms), steps))


if __name__ == "__main__":
    main()
