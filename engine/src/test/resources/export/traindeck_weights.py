"""Reads a TrainDeck export into a dict of torch tensors (the state_dict to load) and its graph JSON.
safetensors.torch.load_file(path) gives the same tensors where the safetensors package is installed."""
import json
import struct
import sys

import numpy as np
import torch


def load(path):
    if path.endswith(".npz"):
        with np.load(path) as z:
            tensors = {name: torch.from_numpy(z[name]) for name in z.files}
        with open(path[:-len(".npz")] + ".json") as f:
            return tensors, json.load(f)
    with open(path, "rb") as f:
        header_length = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(header_length))
        data = f.read()
    graph = json.loads(header.pop("__metadata__")["traindeck.graph"])
    tensors = {}
    for name, t in header.items():
        begin, end = t["data_offsets"]
        tensors[name] = torch.from_numpy(np.frombuffer(data[begin:end], dtype="<f4").reshape(t["shape"]).copy())
    return tensors, graph


def run(net, to_input, from_output):
    """python3 script.py INPUTS.npy OUT_PREFIX WEIGHTS...: the net's outputs with each weights file, OUT_PREFIX<i>.npy."""
    inputs = to_input(np.load(sys.argv[1]))
    for i, path in enumerate(sys.argv[3:]):
        tensors, graph = load(path)
        net.load_state_dict(tensors, strict=True)
        net.eval()
        with torch.no_grad():
            np.save(sys.argv[2] + str(i) + ".npy", from_output(net(inputs)).numpy())
