package org.traindeck.engine.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.train.Nd4jRuntime;

/**
 * The profiler's own walk through a graph gives DL4J's gradient and loss, on a convolutional graph with a residual
 * branch and batch norm and on a small GPT (SameDiff layers, an embedding), passes of each interleaved, and times every
 * node.
 */
class GraphWalkTest {

    private static final String IMAGE_GRAPH = """
            {"name": "walk", "seed": 3,
             "model": {"type": "graph", "layers": [
               {"name": "c1", "type": "conv2d", "filters": 4, "kernel": 3, "padding": "same"},
               {"name": "bn", "type": "batchNorm"},
               {"name": "c2", "type": "conv2d", "filters": 4, "kernel": 3, "padding": "same"},
               {"name": "sum", "type": "add", "inputs": ["bn", "c2"]},
               {"name": "pool", "type": "globalPool"},
               {"name": "fc", "type": "dense", "units": 8}]},
             "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [8, 8, 1], "numClasses": 3}},
             "stages": [{"epochs": 1, "batchSize": 8}]}
            """;

    private static final String GPT = """
            {"name": "walk-gpt", "seed": 3,
             "model": {"type": "gpt", "width": 16, "depth": 2, "heads": 2, "mlpRatio": 2, "dropout": 0},
             "data": {"train": {"type": "text", "path": "%s", "context": 12, "stride": 12, "limit": 32}},
             "stages": [{"epochs": 1, "batchSize": 4}]}
            """;

    @Test
    void aConvolutionalGraphWithABranchGetsDl4jsGradient(@TempDir Path dir) {
        assertSameAsDl4j(IMAGE_GRAPH, dir);
    }

    @Test
    void aGptGetsDl4jsGradient(@TempDir Path dir) {
        String text =
                TestPaths.repoRoot().resolve("data/text/gpl-3.txt").toString().replace("\\", "/");
        assertSameAsDl4j(GPT.formatted(text), dir);
    }

    private static void assertSameAsDl4j(String json, Path dir) {
        Nd4jRuntime.init();
        RunConfig config = ConfigParser.parse(json, dir).orThrow();
        Dataset data = DataLoader.load(config, config.data(), "data").train();
        ComputationGraph net = ModelCompiler.build(config.model(), ModelCompiler.inputOf(config.model(), data), 5);
        GraphWalk walk = new GraphWalk(net);
        Random random = new Random(11);
        for (int pass = 0; pass < 3; pass++) {
            INDArray[] xy = batch(net, data, random);
            double walked = walk.gradientAndScore(new INDArray[] {xy[0]}, new INDArray[] {xy[1]});
            INDArray walkedGradient = net.getGradientsViewArray().dup();
            List<String> walkedKeys =
                    new ArrayList<>(net.gradient().gradientForVariable().keySet());

            net.setInputs(xy[0]);
            net.setLabels(xy[1]);
            net.computeGradientAndScore();

            assertThat(walked).as("loss of pass %d", pass).isCloseTo(net.score(), within(1e-6 * Math.abs(net.score())));
            INDArray real = net.getGradientsViewArray();
            double relative = real.sub(walkedGradient).norm2Number().doubleValue()
                    / real.norm2Number().doubleValue();
            assertThat(relative).as("gradient of pass %d", pass).isLessThan(1e-6);
            assertThat(walkedKeys)
                    .isEqualTo(
                            new ArrayList<>(net.gradient().gradientForVariable().keySet()));
            // DL4J's updater then reads the gradient from the network: the walk's must be what it finds
            for (var e : net.gradient().gradientForVariable().entrySet()) {
                assertThat(e.getValue().norm2Number().doubleValue()).isFinite();
            }
        }
        List<String> expected =
                new ArrayList<>(net.getConfiguration().getVertices().keySet());
        expected.removeAll(net.getConfiguration().getNetworkInputs());
        assertThat(walk.nodeNames()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(walk.passes()).isEqualTo(3);
        long nodes = 0;
        for (int i = 0; i < walk.nodeNames().size(); i++) {
            String node = walk.nodeNames().get(i);
            assertThat(walk.backwardNs()[i]).as("backward of %s", node).isPositive();
            assertThat(walk.forwardNs()[i]).as("forward of %s", node).isPositive();
            nodes += walk.forwardNs()[i] + walk.backwardNs()[i];
        }
        assertThat(nodes + walk.branchSumNs()).isLessThanOrEqualTo(walk.walkNs());
    }

    /** Random inputs of the model's shape, with one-hot labels: images with a class each, or token windows with the next tokens. */
    private static INDArray[] batch(ComputationGraph net, Dataset data, Random random) {
        int b = 4;
        int classes = data.outputCount();
        if (data.vocabulary() != null) {
            int t = data.featureCount();
            INDArray x = Nd4j.zeros(DataType.FLOAT, b, t);
            INDArray y = Nd4j.zeros(DataType.FLOAT, b, classes, t);
            for (int i = 0; i < b; i++) {
                for (int j = 0; j < t; j++) {
                    x.putScalar(i, j, random.nextInt(classes));
                    y.putScalar(new int[] {i, random.nextInt(classes), j}, 1);
                }
            }
            return new INDArray[] {x, y};
        }
        INDArray x = Nd4j.rand(DataType.FLOAT, b, 1, 8, 8);
        INDArray y = Nd4j.zeros(DataType.FLOAT, b, classes);
        for (int i = 0; i < b; i++) {
            y.putScalar(i, random.nextInt(classes), 1);
        }
        return new INDArray[] {x, y};
    }
}
