package org.traindeck.bench;

import java.nio.file.Path;
import java.util.SplittableRandom;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.OneDnnHelpers;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * The reference the engine's overhead is measured against: a plain DL4J loop on the same graph, batches gathered the
 * same way, fit(DataSet) per batch, and the same oneDNN helpers as TrainDeck installs (DL4J leaves them off), so that
 * the ratio is TrainDeck's own cost.
 */
final class BareDl4jLoop {

    private BareDl4jLoop() {}

    /** Samples/s over the epochs after the first, as {@link EngineBench#measure(EngineBench.Workload, Path, String)}. */
    static double samplesPerSecond(EngineBench.Workload w, Path out) {
        RunConfig config = EngineBench.config(w, out, "cpu");
        Dataset data = DataLoader.load(config, config.data(), "data").train();
        ComputationGraph net = ModelCompiler.build(config.model(), ModelCompiler.inputOf(config.model(), data), 1);
        if (Nd4jRuntime.oneDnnUnavailableReason() == null) {
            OneDnnHelpers.install(net);
        }
        boolean images = ModelCompiler.wantsImages(config.model());
        double measured = 0;
        for (int epoch = 0; epoch < EngineBench.EPOCHS; epoch++) {
            long start = System.nanoTime();
            int[] order = DataLoader.permutation(data.size(), new SplittableRandom(epoch));
            for (int from = 0; from < data.size(); from += w.batch()) {
                net.fit(batch(data, order, from, w.batch(), images));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (epoch > 0) {
                measured += seconds;
            }
        }
        return w.samples() * (EngineBench.EPOCHS - 1) / measured;
    }

    private static DataSet batch(Dataset d, int[] order, int from, int size, boolean images) {
        int n = Math.min(size, order.length - from);
        int f = d.featureCount();
        float[] x = new float[n * f];
        float[] y = new float[n * d.outputCount()];
        for (int i = 0; i < n; i++) {
            d.copyFeatures(order[from + i], x, i * f);
            y[i * d.outputCount() + d.classOf(order[from + i])] = 1;
        }
        long[] shape = images
                ? new long[] {
                    n,
                    d.imageShape().channels(),
                    d.imageShape().height(),
                    d.imageShape().width()
                }
                : new long[] {n, f};
        return new DataSet(
                Nd4j.create(x, shape, DataType.FLOAT), Nd4j.create(y, new long[] {n, d.outputCount()}, DataType.FLOAT));
    }
}
