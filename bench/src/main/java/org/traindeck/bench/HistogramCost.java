package org.traindeck.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.health.HistogramData;

/**
 * What one set of per-layer histograms costs the training thread on the U-Net at 128×128 (31 M parameters, as
 * {@code bench unet128}): each node's weights, as views of one flat buffer the way a network holds them, read
 * straight from the arrays ({@link HistogramData#of(List, double)}) against gathered first into one array of doubles
 * per node (cast, flattened, concatenated: how the figures took them before), alternated. A run takes two such sets
 * (the weights and the gradients). Prints thread CPU and wall time of each; argument: the pairs (5 by default).
 */
public final class HistogramCost {

    /** The U-Net's convolution weights node by node (3×3 kernels: in × out × 9; encoder, bottleneck, decoder, head). */
    private static final long[] NODE_SIZES = {
        9L * 64,
        9L * 64 * 64,
        9L * 64 * 128,
        9L * 128 * 128,
        9L * 128 * 256,
        9L * 256 * 256,
        9L * 256 * 512,
        9L * 512 * 512,
        9L * 512 * 1024,
        9L * 1024 * 1024,
        9L * 1536 * 512,
        9L * 512 * 512,
        9L * 768 * 256,
        9L * 256 * 256,
        9L * 384 * 128,
        9L * 128 * 128,
        9L * 192 * 64,
        9L * 64 * 64,
        9L * 64 * 2
    };

    private HistogramCost() {}

    public static void main(String[] args) {
        Nd4jRuntime.init();
        int pairs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        long total = 0;
        for (long n : NODE_SIZES) {
            total += n;
        }
        Nd4j.getRandom().setSeed(1);
        INDArray flat = Nd4j.randn(DataType.FLOAT, 1, total);
        List<INDArray> nodes = new ArrayList<>();
        long at = 0;
        for (long n : NODE_SIZES) {
            nodes.add(flat.get(NDArrayIndex.point(0), NDArrayIndex.interval(at, at + n))
                    .reshape('c', n / 9, 9));
            at += n;
        }
        System.out.printf(Locale.ROOT, "%,d parameters in %d nodes%n", total, nodes.size());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (int p = 0; p < pairs; p++) {
            for (boolean streamed : new boolean[] {false, true}) {
                long cpu = threads.getCurrentThreadCpuTime();
                long wall = System.nanoTime();
                double check = 0;
                for (INDArray node : nodes) {
                    HistogramData h =
                            streamed ? HistogramData.of(List.of(node), 1) : HistogramData.of(gathered(node), 1);
                    check += h.sum();
                }
                System.out.printf(
                        Locale.ROOT,
                        "pair %d %-9s thread CPU %6.0f ms, wall %6.0f ms (sum %.6g)%n",
                        p + 1,
                        streamed ? "streamed" : "gathered",
                        (threads.getCurrentThreadCpuTime() - cpu) / 1e6,
                        (System.nanoTime() - wall) / 1e6,
                        check);
            }
        }
        System.exit(0);
    }

    /** The node's values as the figures took them before: cast to double, flattened, copied into one array. */
    private static double[] gathered(INDArray node) {
        double[] part = node.castTo(DataType.DOUBLE).reshape(node.length()).toDoubleVector();
        double[] out = new double[part.length];
        System.arraycopy(part, 0, out, 0, part.length);
        return out;
    }
}
