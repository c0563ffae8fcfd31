package org.traindeck.engine.use.export;

import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.dataset.DataSet;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.ConfigParser;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The exported weights, loaded into the PyTorch module of the same network by the scripts docs/export.md shows, give
 * TrainDeck's outputs on the same inputs (within 1e-4), from both file formats.
 */
class PyTorchExportTest {

    @TempDir
    Path dir;

    @BeforeAll
    static void torchIsThere() {
        String why = TorchScripts.whyNotAvailable();
        assumeTrue(why == null, () -> "PyTorch export check skipped: " + why);
    }

    @Test
    void anMlpGivesTheSameOutputsInPyTorch() throws Exception {
        ModelInput input = new ModelInput(InputType.feedForward(12), Task.CLASSIFICATION, 3);
        ComputationGraph net = ModelCompiler.build(new ModelConfig.Mlp(List.of(32, 16), ModelConfig.Activation.RELU, 0.1, null), input, 7);
        INDArray x = Nd4j.randn(DataType.FLOAT, 16, 12);
        train(net, x, oneHot(Nd4j.createFromArray(new int[16]).addi(1), 3));
        assertSameInPyTorch(net, x, "mlp.py", Map.of());
    }

    @Test
    void aCnnWithBatchNormGivesTheSameOutputsInPyTorch() throws Exception {
        ModelInput input = new ModelInput(InputType.convolutional(12, 12, 1), Task.CLASSIFICATION, 3);
        ComputationGraph net = ModelCompiler.build(new ModelConfig.LeNet(List.of(4, 8), 5, 16, ModelConfig.Activation.RELU, 0, true),
                input, 7);
        INDArray x = Nd4j.rand(DataType.FLOAT, 16, 1, 12, 12);
        INDArray classes = Nd4j.createFromArray(new int[] {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0});
        // several steps so that BatchNorm's running mean and variance are far from their start
        for (int i = 0; i < 4; i++) {
            train(net, x, oneHot(classes, 3));
        }
        assertSameInPyTorch(net, x, "cnn.py", Map.of());
    }

    @Test
    void theGptSampleGivesTheSameOutputsInPyTorch() throws Exception {
        Path sample = TestPaths.sampleConfigs().resolve("text-gpt.json");
        RunConfig run = ConfigParser.parse(Files.readString(sample), sample.getParent()).orThrow();
        ModelInput input;
        try (DataLoader.Loaded data = DataLoader.load(run, run.data(), "data")) {
            input = ModelCompiler.inputOf(run.model(), data.train());
        }
        int vocabulary = input.outputs();
        int context = (int) ((InputType.InputTypeRecurrent) input.input()).getTimeSeriesLength();
        ComputationGraph net = ModelCompiler.build(run.model(), input, run.seed());
        Nd4j.getRandom().setSeed(3);
        INDArray ids = Nd4j.rand(DataType.FLOAT, 4, 1, context).muli(vocabulary).castTo(DataType.INT32).castTo(DataType.FLOAT);
        INDArray next = Nd4j.rand(DataType.FLOAT, 4, context).muli(vocabulary).castTo(DataType.INT32);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, 4, vocabulary, context);
        for (int b = 0; b < 4; b++) {
            for (int t = 0; t < context; t++) {
                labels.putScalar(b, next.getInt(b, t), t, 1f);
            }
        }
        for (int i = 0; i < 3; i++) {
            net.fit(new DataSet(ids, labels));
        }
        assertSameInPyTorch(net, ids, "gpt.py", Map.of("VOCABULARY", Integer.toString(vocabulary), "CONTEXT", Integer.toString(context)));
    }

    private void assertSameInPyTorch(ComputationGraph net, INDArray x, String script, Map<String, String> env) throws Exception {
        ModelTensors tensors = ModelTensors.of(net, NamingTable.standard(), null);
        Path safetensors = dir.resolve("model.safetensors");
        Path npz = dir.resolve("model.npz");
        WeightsExport.write(tensors, ExportFormat.SAFETENSORS, safetensors, false);
        WeightsExport.write(tensors, ExportFormat.NPZ, npz, false);
        Path inputs = dir.resolve("inputs.npy");
        // token ids go to PyTorch as [batch, time]
        INDArray shown = x.rank() == 3 && script.equals("gpt.py") ? x.reshape(x.size(0), x.size(2)) : x;
        try (OutputStream out = Files.newOutputStream(inputs)) {
            NpyWriter.write(new NamedTensor("inputs", shown.shape(), shown.dup('c').reshape(shown.length()).toFloatVector()), out);
        }
        INDArray expected = net.outputSingle(x);
        for (Path out : TorchScripts.run(dir, script, inputs, List.of(safetensors, npz), env)) {
            INDArray actual = Nd4j.createFromNpyFile(out.toFile()).castTo(DataType.FLOAT);
            assertThat(actual.shape()).isEqualTo(expected.shape());
            double maxDifference = actual.sub(expected).amaxNumber().doubleValue();
            assertThat(maxDifference).as("largest difference to TrainDeck's outputs, %s from %s", script, out).isLessThan(1e-4);
        }
    }

    private static void train(ComputationGraph net, INDArray x, INDArray y) {
        for (int i = 0; i < 3; i++) {
            net.fit(new DataSet(x, y));
        }
    }

    private static INDArray oneHot(INDArray classes, int count) {
        INDArray out = Nd4j.zeros(DataType.FLOAT, classes.length(), count);
        for (int i = 0; i < classes.length(); i++) {
            out.putScalar(i, classes.getInt(i), 1f);
        }
        return out;
    }
}
