package org.traindeck.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.NeuralNetConfiguration;
import org.deeplearning4j.nn.conf.layers.DenseLayer;
import org.deeplearning4j.nn.conf.layers.OutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.lossfunctions.LossFunctions;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.parallel.DistributedSession;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.ShardWork;
import org.traindeck.engine.parallel.StepSum;

/**
 * The per-step cost of the Spark step on two executors, for the README: wall time against the executors' compute,
 * with the parameters broadcast or carried in the tasks, for a small (≈ 22 k parameters, the digits LeNet's size)
 * and a large (≈ 1 M) model. Not a test: run with -Dgroups=measurement.
 */
@Tag("measurement")
class StepOverheadMeasurement {

    @TempDir
    Path dir;

    @Test
    void measure() throws Exception {
        try (LocalCluster cluster = new LocalCluster(dir)) {
            cluster.startMaster().startWorkers(2);
            for (int hidden : new int[] {300, 15000}) {
                for (String mode : new String[] {"broadcast", "tasks"}) {
                    measure(cluster, hidden, mode);
                }
            }
        }
    }

    private void measure(LocalCluster cluster, int hidden, String mode) throws Exception {
        ComputationGraph net = new ComputationGraph(new NeuralNetConfiguration.Builder()
                .seed(1)
                .graphBuilder()
                .addInputs("in")
                .addLayer(
                        "h",
                        new DenseLayer.Builder()
                                .nIn(64)
                                .nOut(hidden)
                                .activation(Activation.RELU)
                                .build(),
                        "in")
                .addLayer(
                        "out",
                        new OutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                                .nIn(hidden)
                                .nOut(10)
                                .activation(Activation.SOFTMAX)
                                .build(),
                        "h")
                .setOutputs("out")
                .build());
        net.init();
        byte[] params = Nd4j.toByteArray(net.params());
        List<ShardWork> shards = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            shards.add(new ShardWork(0, 32, List.of(new ShardWork.MicroBatch(w, w))));
        }
        // the executors generate the same 64-feature data themselves
        RunConfig data = ConfigParser.parse("""
                {"name": "measure", "model": {"type": "mlp", "hidden": [16]},
                 "data": {"train": {"type": "synthetic", "task": "classification", "samples": 256, "features": 64, "numClasses": 10}},
                 "stages": [{"epochs": 1, "batchSize": 32}]}
                """, cluster.dir).orThrow();
        ShardData shardData = new ShardData(ConfigWriter.toJsonWithAbsolutePaths(data), 0, 256, List.of());
        DistributedSpec spec = new DistributedSpec(
                cluster.url(),
                2,
                "measure-" + hidden + "-" + mode,
                net.getConfiguration().toJson(),
                shardData,
                false,
                false,
                cluster.secretFile,
                90,
                120,
                Map.of(SparkStepSession.PARAMETERS_SETTING, mode));
        int steps = 23;
        double[] wall = new double[steps - 3];
        double[] exchange = new double[steps - 3];
        double[] compute = new double[steps - 3];
        try (DistributedSession session = new SparkBackend().open(spec)) {
            for (int s = 0; s < steps; s++) {
                long t0 = System.nanoTime();
                StepSum sum = session.step(s + 1, params, shards);
                if (s >= 3) {
                    wall[s - 3] = (System.nanoTime() - t0) / 1e6;
                    exchange[s - 3] = sum.exchangeNanos() / 1e6;
                    compute[s - 3] = Arrays.stream(sum.computeNanos()).max().orElse(0) / 1e6;
                }
            }
        }
        System.out.printf(
                "MEASURED %d parameters (%.2f MB), parameters by %s: step median %.0f ms (p10 %.0f, p90 %.0f),"
                        + " exchange median %.0f ms, slowest executor's compute median %.0f ms%n",
                net.numParams(),
                params.length / 1e6,
                mode,
                median(wall),
                pct(wall, 0.1),
                pct(wall, 0.9),
                median(exchange),
                median(compute));
    }

    private static double median(double[] v) {
        return pct(v, 0.5);
    }

    private static double pct(double[] v, double p) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.round(p * (s.length - 1)))];
    }
}
