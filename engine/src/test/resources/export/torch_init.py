"""Starting weights written by PyTorch: python3 torch_init.py vit|gpt OUT_DIR.
Builds the peer module of docs/export.md (vit.py, gpt.py) with weights of its own, saves its state_dict as
OUT_DIR/torch.safetensors (written from the format, as safetensors.torch.save_file writes it) and OUT_DIR/torch.npz
(numpy.savez), and its inputs, targets, outputs and mean cross-entropy on them (the gpt's token stream too)."""
import json
import os
import struct
import sys

import numpy as np
import torch
import traindeck_weights

traindeck_weights.run = lambda *args, **kwargs: None   # the peer scripts run themselves on import: not here


def save_safetensors(tensors, path):
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


kind, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
if kind == "vit":
    import vit
    net = vit.Vit()
    inputs = torch.rand(24, 1, 12, 12)
    targets = torch.randint(0, 3, (24,))
else:
    os.environ["VOCABULARY"], os.environ["CONTEXT"] = "11", "8"
    import gpt
    net = gpt.net
    stream = torch.randint(0, 11, (6 * 8 + 1,))   # a numpy sequence source's windows: tokens [8i, 8i + 8), shifted by one
    np.save(os.path.join(out, "stream.npy"), stream.numpy().astype(np.int64))
    inputs = torch.stack([stream[8 * i:8 * i + 8] for i in range(6)])
    targets = torch.stack([stream[8 * i + 1:8 * i + 9] for i in range(6)])
with torch.no_grad():
    for p in net.parameters():   # away from the default start (unit gains, zero biases): every tensor counts
        p.add_(0.1 * torch.randn_like(p))
net.eval()
with torch.no_grad():
    outputs = net(inputs)
loss = -torch.log(outputs.gather(-1, targets.unsqueeze(-1))).mean()
state = net.state_dict()
save_safetensors(state, os.path.join(out, "torch.safetensors"))
np.savez(os.path.join(out, "torch.npz"), **{k: v.numpy() for k, v in state.items()})
np.save(os.path.join(out, "inputs.npy"), inputs.numpy().astype(np.float32))
np.save(os.path.join(out, "targets.npy"), targets.numpy().astype(np.int64))
np.save(os.path.join(out, "outputs.npy"), outputs.numpy())
with open(os.path.join(out, "loss.txt"), "w") as f:
    f.write(repr(loss.item()))
