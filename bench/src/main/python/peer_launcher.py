"""How a PyTorch peer of TrainDeck's benchmark uses the machine's cores (bench/TorchSetting.java says which):

  "T"    one process with T threads (torch.set_num_threads(T));
  "PxT"  DistributedDataParallel: P processes of T threads each, the gloo backend rendezvousing on a free port of
         127.0.0.1; every process builds the same model and draws the same batch order, and takes its own contiguous
         share of each global batch (as TrainDeck's cpu:P workers do); DDP averages the gradients.

The caller sets OPENBLAS_NUM_THREADS (the peer preloads ND4J's OpenBLAS): its threads run beside PyTorch's own.
"""
import os
import socket
from collections import namedtuple

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

Setting = namedtuple("Setting", "processes threads")


def parse(text):
    """ "2" -> 1 process x 2 threads, "2x1" -> 2 processes x 1 thread."""
    parts = text.lower().split("x")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        numbers = []
    if len(numbers) not in (1, 2) or min(numbers) < 1:
        raise SystemExit("peer setting %r: expected THREADS or PROCESSESxTHREADS, e.g. 2 or 2x1" % text)
    return Setting(1, numbers[0]) if len(numbers) == 1 else Setting(numbers[0], numbers[1])


class Rank:
    """One training process's place: wraps the model, takes its share of a global batch, reports once."""

    def __init__(self, rank, world):
        self.rank, self.world = rank, world

    def wrap(self, net):
        return DistributedDataParallel(net) if self.world > 1 else net

    def share(self, batch_indices):
        """This process's contiguous part of a global batch's indices."""
        if self.world == 1:
            return batch_indices
        return torch.tensor_split(batch_indices, self.world)[self.rank]

    def mean(self, value):
        """The processes' mean of a scalar (a loss over equal shares: the global batch's loss)."""
        if self.world == 1:
            return float(value)
        t = torch.tensor([float(value)], dtype=torch.float64)
        dist.all_reduce(t)
        return float(t[0]) / self.world

    def report(self, line):
        if self.rank == 0:
            print(line, flush=True)


def launch(setting, train, *args):
    """Runs train(rank, *args) as the setting says; train must be a module-level function (the children import it)."""
    if setting.processes == 1:
        torch.set_num_threads(setting.threads)
        train(Rank(0, 1), *args)
        return
    mp.spawn(_process, args=(setting, free_port(), train, args), nprocs=setting.processes, join=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _process(rank, setting, port, train, args):
    torch.set_num_threads(setting.threads)
    if os.path.isdir("/sys/class/net/lo"):
        # gloo otherwise connects through the address the host name resolves to, which may be a real interface
        os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    store = dist.TCPStore("127.0.0.1", port, setting.processes, rank == 0)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=setting.processes)
    try:
        train(Rank(rank, setting.processes), *args)
    finally:
        dist.destroy_process_group()
