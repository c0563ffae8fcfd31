"""PyTorch's peer of engine ConvOpTiming (test scope): one convolution's forward (F.conv2d) and backward
(aten.convolution_backward: input, weight and bias gradients, as autograd calls it) at the same shapes, one thread,
least and median thread CPU time per call. PyTorch 1.13 runs both on oneDNN (mkldnn_convolution*).
usage: pytorch_conv_ops.py [CALLS] [NAMES]"""
import sys
import time

import torch
import torch.nn.functional as F

# name, batch, channels in, filters, image size, window (ConvOpTiming.SHAPES)
SHAPES = [
    ("unet.enc1a", 32, 1, 16, 32, 3), ("unet.enc1b", 32, 16, 16, 32, 3), ("unet.enc2a", 32, 16, 32, 16, 3),
    ("unet.enc2b", 32, 32, 32, 16, 3), ("unet.bottom1", 32, 32, 64, 8, 3), ("unet.bottom2", 32, 64, 64, 8, 3),
    ("unet.dec2a", 32, 96, 32, 16, 3), ("unet.dec2b", 32, 32, 32, 16, 3), ("unet.dec1a", 32, 48, 16, 32, 3),
    ("unet.dec1b", 32, 16, 16, 32, 3), ("resnet18.s1", 32, 64, 64, 32, 3), ("resnet18.s3", 32, 256, 256, 8, 3),
    ("unet128.l1", 4, 64, 64, 128, 3), ("unet128.l3", 4, 256, 256, 32, 3),
]


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    torch.set_num_threads(1)
    torch.manual_seed(1)
    for name, n, c, o, hw, k in SHAPES:
        if only and name not in only:
            continue
        x = torch.randn(n, c, hw, hw)
        w = torch.randn(o, c, k, k)
        b = torch.randn(o)
        dz = torch.randn(n, o, hw, hw)
        fwd, bwd = [], []
        for call in range(-3, calls):
            t0 = time.thread_time()
            F.conv2d(x, w, b, padding=k // 2)
            t1 = time.thread_time()
            torch.ops.aten.convolution_backward(
                dz, x, w, [o], [1, 1], [k // 2, k // 2], [1, 1], False, [0, 0], 1, [True, True, True])
            t2 = time.thread_time()
            if call >= 0:
                fwd.append((t1 - t0) * 1e3)
                bwd.append((t2 - t1) * 1e3)
        fwd.sort()
        bwd.sort()
        print("%-13s %2dx%3d->%3d @%3d  torch fwd %7.3f / %7.3f bwd %7.3f / %7.3f ms (min / median)"
              % (name, n, c, o, hw, fwd[0], fwd[calls // 2], bwd[0], bwd[calls // 2]))


if __name__ == "__main__":
    main()
