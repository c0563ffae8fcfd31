package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;

/** Graph configs on 8×8×1 synthetic images (2 classes), and a few real training steps on random data of a model's shape. */
final class GraphFixture {

    static final ModelInput IMAGES = new ModelInput(InputType.convolutional(8, 8, 1), Task.CLASSIFICATION, 2);

    private GraphFixture() {}

    static String config(String layers) {
        return """
                {"name": "g", "model": {"type": "graph", "layers": [%s]},
                 "data": {"train": {"type": "synthetic", "samples": 64, "imageShape": [8, 8, 1], "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 16}]}
                """.formatted(layers);
    }

    /** The config read and checked against the synthetic data; fails the test if it has problems. */
    static ModelCheck.Checked built(String layers, Path dir) {
        ModelCheck.Checked c = ModelCheck.checkWithSummary(ConfigParser.parse(config(layers), dir));
        assertThat(c.result().errors()).as("problems of %s", layers).isEmpty();
        return c;
    }

    static ConfigProblem firstError(String layers, Path dir) {
        ValidationResult r = ModelCheck.checkWithSummary(ConfigParser.parse(config(layers), dir))
                .result();
        assertThat(r.isValid()).as("expected a problem in %s", layers).isFalse();
        return r.errors().get(0);
    }

    static ModelConfig model(String layers, Path dir) {
        return ConfigParser.parse(config(layers), dir).orThrow().model();
    }

    static String shapeOf(ModelSummary s, String node) {
        return row(s, node).outputShape();
    }

    static ModelSummary.Row row(ModelSummary s, String node) {
        return s.rows().stream().filter(r -> r.name().equals(node)).findFirst().orElseThrow();
    }

    /** The losses of {@code steps} fit calls on one fixed random batch of 8. */
    static List<Double> train(ComputationGraphConfiguration conf, ModelInput input, int steps) {
        ComputationGraph graph = new ComputationGraph(conf);
        graph.init();
        Random random = new Random(7);
        DataSet batch = new DataSet(features(input, 8, random), labels(input, graph, 8, random));
        List<Double> losses = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            graph.fit(batch);
            losses.add(graph.score());
        }
        return losses;
    }

    static void assertLearns(List<Double> losses) {
        assertThat(losses).allSatisfy(l -> assertThat(l).isFinite());
        assertThat(losses.get(losses.size() - 1)).as("last loss of %s", losses).isLessThan(losses.get(0));
    }

    private static INDArray features(ModelInput input, int n, Random random) {
        if (input.tokens()) {
            InputType.InputTypeRecurrent r = (InputType.InputTypeRecurrent) input.input();
            INDArray ids = Nd4j.create(n, 1, r.getTimeSeriesLength());
            for (long i = 0; i < ids.length(); i++) {
                ids.putScalar(i, random.nextInt((int) r.getSize()));
            }
            return ids;
        }
        long[] shape = input.input().getShape(true);
        shape[0] = n;
        return Nd4j.rand(shape);
    }

    /** One-hot labels in the shape of the model's output: per sample, per step or per pixel. */
    private static INDArray labels(ModelInput input, ComputationGraph graph, int n, Random random) {
        long[] shape = graph.getConfiguration()
                .clone()
                .getLayerActivationTypes(input.input())
                .get(ModelCompiler.OUTPUT)
                .getShape(true);
        shape[0] = n;
        int classes = (int) shape[1];
        int positions = (int) (Arrays.stream(shape).reduce(1, (a, b) -> a * b) / ((long) n * classes));
        float[] values = new float[n * classes * positions];
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < positions; p++) {
                // channels first: sample i, class c, position p
                values[(i * classes + random.nextInt(classes)) * positions + p] = 1;
            }
        }
        return Nd4j.create(values, shape, 'c');
    }
}
