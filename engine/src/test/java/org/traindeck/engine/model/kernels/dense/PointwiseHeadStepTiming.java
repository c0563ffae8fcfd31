package org.traindeck.engine.model.kernels.dense;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Convolution3D;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.MultiDataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.model.Heads;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.kernels.KernelInstances;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.batch.StagePlan;
import org.traindeck.engine.train.batch.StageSetup;

/**
 * A measurement, not a test: a config's first-stage network (a volume head, e.g. sample-configs/xray-volume-cascade.json)
 * trained step by step on one random batch as it builds it (head on {@link Pointwise3D}) and with DL4J's
 * Convolution3D as the head, the same parameters, the two networks' steps alternated; prints each one's median
 * thread CPU per step and the median of the pairwise ratios (min–max). java -cp test-classes:classes:deps
 * ...PointwiseHeadStepTiming CONFIG [pairs]
 */
public final class PointwiseHeadStepTiming {

    private PointwiseHeadStepTiming() {}

    public static void main(String[] args) {
        Nd4jRuntime.init();
        RunConfig config = Configs.load(Path.of(args[0])).orThrow();
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        ComputationGraph kernel;
        ModelInput input;
        int mb;
        try (StageSetup setup = new StageSetup(config, null)) {
            StagePlan plan = setup.plan(0);
            input = ModelCompiler.inputOf(config.model(), plan.data.train());
            kernel = ModelCompiler.build(config.model(), input, config.seed());
            mb = plan.stage.batchSize();
        }
        ComputationGraphConfiguration conf = kernel.getConfiguration().clone();
        LayerVertex head = (LayerVertex) conf.getVertices().get(Heads.PROJECTION);
        if (!(head.getLayerConf().getLayer() instanceof Pointwise3D p)) {
            throw new IllegalStateException("the config's head is not a Pointwise3D: "
                    + head.getLayerConf().getLayer().getClass().getSimpleName());
        }
        head.getLayerConf().setLayer(KernelInstances.copyFields(Convolution3D.class, p, new Convolution3D()));
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
                "step thread CPU (median of %d): head on Pointwise3D %.2f ms, on Convolution3D %.2f ms;"
                        + " Convolution3D / Pointwise3D %.3f (%.3f-%.3f)%n",
                pairs,
                median(times[0]) / 1e6,
                median(times[1]) / 1e6,
                ratios[pairs / 2],
                ratios[0],
                ratios[pairs - 1]);
        System.exit(0);
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
