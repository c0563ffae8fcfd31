package org.traindeck.engine.model;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Cnn3DLossLayer;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.model.kernels.conv.Conv3DKernel;
import org.traindeck.engine.model.kernels.conv.VolumeMseHead;
import org.traindeck.engine.model.kernels.embedding.PatchEmbedding3DKernel;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.batch.StageSetup;

/**
 * A measurement, not a test: a config's first-stage network (a volume model, e.g.
 * sample-configs/xray-volume-cascade.json) trained step by step on one random batch as TrainDeck builds it, and as it
 * built it before one change ("head": the head on DL4J's Convolution3D instead of the {@link Conv3DKernel}; "patches": the
 * 3D patch kernels that read a network input computing its gradient all the same; "loss": the head's MSE on DL4J's
 * Cnn3DLossLayer instead of {@link VolumeMseHead}), the same parameters, the two
 * networks' steps alternated; prints each one's median thread CPU per step and the median of the pairwise ratios
 * (min–max). java -cp test-classes:classes:deps org.traindeck.engine.model.VolumeStepTiming CONFIG head|patches|loss [pairs]
 */
public final class VolumeStepTiming {

    private VolumeStepTiming() {}

    public static void main(String[] args) {
        Nd4jRuntime.init();
        RunConfig config = Configs.load(Path.of(args[0])).orThrow();
        String change = args[1];
        int pairs = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        ComputationGraph kernel;
        ModelInput input;
        int mb;
        try (StageSetup setup = new StageSetup(config, null)) {
            StagePlan plan = setup.plan(0);
            input = ModelCompiler.inputOf(config.model(), plan.data.train());
            kernel = ModelCompiler.build(config.model(), input, config.seed());
            mb = plan.stage.batchSize();
        }
        ComputationGraphConfiguration conf = before(kernel.getConfiguration().clone(), change);
        ComputationGraph reference = new ComputationGraph(conf);
        reference.init(kernel.params().dup(), true);
        MultiDataSet batch = randomBatch(kernel, input.types(), mb);
        long[][] times = new long[2][pairs];
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ComputationGraph[] nets = {kernel, reference};
        for (int warm = 0; warm < 2; warm++) {
            for (int i = 0; i < pairs; i++) {
                for (int k = 0; k < 2; k++) {
                    int which = (i + k) % 2; // alternate which goes first
                    long t0 = threads.getCurrentThreadCpuTime();
                    nets[which].fit(batch);
                    times[which][i] = threads.getCurrentThreadCpuTime() - t0;
                }
            }
        }
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            ratios[i] = (double) times[1][i] / times[0][i];
        }
        Arrays.sort(ratios);
        System.out.printf(
                Locale.ROOT,
                "%s: step thread CPU (median of %d): now %.2f ms, before %.2f ms; before / now %.3f (%.3f-%.3f)%n",
                change,
                pairs,
                median(times[0]) / 1e6,
                median(times[1]) / 1e6,
                ratios[pairs / 2],
                ratios[0],
                ratios[pairs - 1]);
        System.exit(0);
    }

    /** The configuration as it was before the change. */
    private static ComputationGraphConfiguration before(ComputationGraphConfiguration conf, String change) {
        for (var entry : conf.getVertices().entrySet()) {
            if (!(entry.getValue() instanceof LayerVertex l)) {
                continue;
            }
            Layer layer = l.getLayerConf().getLayer();
            boolean head = entry.getKey().equals(Heads.PROJECTION);
            if (change.equals("head") && head && layer instanceof Conv3DKernel p) {
                l.getLayerConf().setLayer(KernelInstances.copyFields(Convolution3D.class, p, new Convolution3D()));
            } else if (change.equals("patches") && layer instanceof PatchEmbedding3DKernel p) {
                p.setInputGradient(true);
            } else if (change.equals("loss") && layer instanceof VolumeMseHead h) {
                l.getLayerConf().setLayer(KernelInstances.copyFields(Cnn3DLossLayer.class, h, new Cnn3DLossLayer()));
            }
        }
        return conf;
    }

    /** Uniform [0, 1) inputs of the model's input types and labels of its output's shape. */
    private static MultiDataSet randomBatch(ComputationGraph net, InputType[] types, int mb) {
        Nd4j.getRandom().setSeed(1);
        INDArray[] inputs = new INDArray[types.length];
        for (int i = 0; i < inputs.length; i++) {
            inputs[i] = Nd4j.rand(DataType.FLOAT, withBatch(types[i].getShape(true), mb));
        }
        INDArray labels = Nd4j.rand(DataType.FLOAT, net.output(false, inputs)[0].shape());
        return new MultiDataSet(inputs, new INDArray[] {labels});
    }

    private static long[] withBatch(long[] shape, int mb) {
        long[] s = shape.clone();
        s[0] = mb;
        return s;
    }

    private static double median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
