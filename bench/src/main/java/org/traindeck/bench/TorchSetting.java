package org.traindeck.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * How a PyTorch peer uses the cores (bench/src/main/python/peer_launcher.py): one process with some threads, or
 * DistributedDataParallel's processes of one thread each (gloo on 127.0.0.1, the same global batch split between
 * them, as TrainDeck's {@code cpu:N} splits it). ND4J's OpenBLAS, preloaded into the peer, runs single-threaded in
 * every setting: its own threads beside PyTorch's oversubscribed two cores (2.3× slower than one thread).
 */
record TorchSetting(int processes, int threads) {

    /** DDP's loss may differ from one process's by float rounding only (gradients summed in another order). */
    static final double SAME_TRAINING = 1e-4;

    private static boolean checked;

    static TorchSetting threads(int threads) {
        return new TorchSetting(1, threads);
    }

    static TorchSetting ddp(int processes) {
        return new TorchSetting(processes, 1);
    }

    /** What PyTorch's users would run on {@code cores} cores: one thread, DDP with a process a core, one process. */
    static List<TorchSetting> wholeMachine(int cores) {
        return cores > 1 ? List.of(threads(1), ddp(cores), threads(cores)) : List.of(threads(1));
    }

    /** The peer script's SETTING argument. */
    String arg() {
        return processes == 1 ? String.valueOf(threads) : processes + "x" + threads;
    }

    int openBlasThreads() {
        return 1;
    }

    /** How a row names it. */
    String describe() {
        if (processes > 1) {
            return "DDP " + processes + " processes × " + threads + " thread (gloo)";
        }
        return threads == 1 ? "1 thread" : "1 process × " + threads + " threads (OpenBLAS 1 thread)";
    }

    /**
     * Once per bench run, before a DDP figure counts: the LeNet peer's global-batch loss over its first steps in DDP
     * (2 processes) and in one process must agree within {@link #SAME_TRAINING}, or DDP would train something else.
     */
    static synchronized void checkDdpOnce(String python, Path script, Report report) throws Exception {
        if (checked) {
            return;
        }
        checked = true;
        int steps = 10;
        double[] one = PeerBench.trace(python, script, "lenet", steps, threads(1));
        double[] ddp = PeerBench.trace(python, script, "lenet", steps, ddp(2));
        double worst = 0;
        for (int i = 0; i < steps; i++) {
            worst = Math.max(worst, Math.abs(ddp[i] - one[i]) / Math.abs(one[i]));
        }
        String figure = String.format(
                Locale.ROOT, "largest relative difference %.1e (losses %.6f … %.6f)", worst, one[0], one[steps - 1]);
        report.add(
                "CPU peer",
                "PyTorch DDP 2 × 1 thread against 1 process: the LeNet's loss over " + steps + " steps, batch 64",
                figure,
                "—",
                "—",
                "≤ 1e-4");
        if (!(worst <= SAME_TRAINING)) {
            throw new IllegalStateException("the DDP peer does not train as the one-process peer: " + figure);
        }
    }
}
