package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.Dataset;
import org.traindeck.engine.data.SyntheticData;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * oneDNN's layer helpers, installed by TrainDeck, give DL4J's gradients (relative 1e-3) over 20 steps of plain SGD,
 * and really run: their results differ from DL4J's own path in the last bits, which they could not if the layers
 * still used that path, and no layer fell back to it.
 */
class OneDnnHelpersTest {

    private static final Dataset IMAGES = SyntheticData.generate(
            new SyntheticSource(Task.CLASSIFICATION, 64, null, List.of(12, 12, 1), 4, 0.3, 0), 1, 2);

    private static ModelConfig model(String type) {
        return type.equals("lenet")
                ? new ModelConfig.LeNet(List.of(8, 16), 3, 32, ModelConfig.Activation.RELU, 0, false)
                : new ModelConfig.ResNet(2, 8, ModelConfig.Activation.RELU);
    }

    private static INDArray[] batch() {
        int n = IMAGES.size();
        int f = IMAGES.featureCount();
        float[] x = new float[n * f];
        float[] y = new float[n * IMAGES.outputCount()];
        for (int i = 0; i < n; i++) {
            IMAGES.copyFeatures(i, x, i * f);
            y[i * IMAGES.outputCount() + IMAGES.classOf(i)] = 1;
        }
        return new INDArray[] {
            Nd4j.create(x, new long[] {n, 1, 12, 12}, DataType.FLOAT),
            Nd4j.create(y, new long[] {n, IMAGES.outputCount()}, DataType.FLOAT)
        };
    }

    private static double relativeDifference(INDArray a, INDArray b) {
        return a.sub(b).norm2Number().doubleValue() / a.norm2Number().doubleValue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"lenet", "resnet"})
    void theHelpersGiveDl4jsGradientsAndAreReallyUsed(String type) {
        Nd4jRuntime.init();
        assertThat(Nd4jRuntime.oneDnnUnavailableReason())
                .as("the test JVM runs on the -onednn natives")
                .isNull();
        // DL4J's convolution layers (the convolution kernel calls libnd4j's ops itself and never the helper)
        ComputationGraph stock =
                ModelCompiler.build(model(type), ModelCompiler.inputOf(model(type), IMAGES), 3, KernelUse.REFERENCE);
        ComputationGraph helped =
                ModelCompiler.build(model(type), ModelCompiler.inputOf(model(type), IMAGES), 3, KernelUse.REFERENCE);
        int installed = OneDnnHelpers.install(helped);
        assertThat(installed).isEqualTo(type.equals("lenet") ? 4 : 5);
        assertThat(OneDnnHelpers.layersWithHelpers(stock)).isEmpty();
        assertThat(OneDnnHelpers.layersWithHelpers(helped)).hasSize(installed);

        INDArray[] xy = batch();
        boolean anyBitDiffers = false;
        for (int step = 0; step < 20; step++) {
            for (ComputationGraph net : List.of(stock, helped)) {
                net.setInputs(xy[0]);
                net.setLabels(xy[1]);
                net.computeGradientAndScore();
            }
            INDArray g1 = stock.getGradientsViewArray();
            INDArray g2 = helped.getGradientsViewArray();
            assertThat(relativeDifference(g1, g2))
                    .as("gradient at step %d", step)
                    .isLessThan(1e-3);
            // INDArray.equals allows 1e-5: compare the bits
            anyBitDiffers |= !Arrays.equals(g1.toFloatVector(), g2.toFloatVector());
            // the same plain SGD step on both, from the stock gradient, so that the parameters stay comparable
            stock.params()
                    .subi(g1.mul(0.01 / IMAGES.size()).reshape(stock.params().shape()));
            helped.params().assign(stock.params());
        }
        assertThat(anyBitDiffers)
                .as("the helpers' arithmetic differs from DL4J's own in the last bits")
                .isTrue();
        assertThat(OneDnnHelpers.layersThatFellBack(helped)).isEmpty();
    }

    @Test
    void separableAndDepthwiseConvolutionsGetNoHelperTheyWouldNotUse(@TempDir Path dir) {
        Nd4jRuntime.init();
        ComputationGraph net = ModelCompiler.build(GraphFixture.model("""
                {"name": "plain", "type": "conv2d", "filters": 3, "kernel": 3},
                {"type": "depthwiseConv2d", "kernel": 3},
                {"type": "separableConv2d", "filters": 4, "kernel": 3},
                {"type": "globalPool"}""", dir), GraphFixture.IMAGES, 1);

        assertThat(OneDnnHelpers.install(net)).isEqualTo(1);
        assertThat(OneDnnHelpers.layersWithHelpers(net)).containsExactly("plain");
    }

    @Test
    void aRunUsesThemOnEveryReplicaUnlessTheConfigTurnsThemOff(@TempDir Path dir) throws Exception {
        String digits = TestPaths.repoRoot()
                .resolve("data/digits/digits.csv.gz")
                .toString()
                .replace("\\", "/");
        String config = """
                {"name": "%s", "outputDir": "out", "seed": 4, "devices": "cpu:2",
                 "model": {"type": "lenet", "channels": [8, 16], "kernelSize": 3, "dense": 32},
                 "data": {"train": {"type": "csv", "path": "%s", "numClasses": 10, "imageShape": [8, 8, 1], "normalize": "minmax"},
                          "validationSplit": 0.5},
                 "stages": [{"epochs": 1, "batchSize": 32}], "performance": {"onednn": %s}}
                """;
        RunResult on = TrainingRun.open(RunRequest.of(ConfigParser.parse(config.formatted("on", digits, true), dir)
                        .orThrow()))
                .runHere();
        RunResult off = TrainingRun.open(RunRequest.of(ConfigParser.parse(config.formatted("off", digits, false), dir)
                        .orThrow()))
                .runHere();

        assertThat(on.status()).isEqualTo(RunResult.Status.FINISHED);
        String onLog = Files.readString(on.runDir().resolve("train.log"));
        assertThat(onLog)
                .contains("oneDNN: on for 4 convolution and pooling layer(s)")
                .doesNotContain("oneDNN failed");
        assertThat(Files.readString(off.runDir().resolve("train.log")))
                .contains("oneDNN: not used, off in the config (\"performance\": {\"onednn\": false})");
        assertThat(on.lastMetrics().get("val/accuracy"))
                .isCloseTo(off.lastMetrics().get("val/accuracy"), within(0.03));
    }
}
