package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.InitConfig;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.weights.InitReport;
import org.traindeck.engine.weights.StartingWeights;

/**
 * Weights TrainDeck never trained: the peer modules of docs/export.md (a ViT and the GPT), given weights of their own
 * in PyTorch and saved from their state_dict as safetensors and npz, start a TrainDeck model that gives PyTorch's
 * outputs (within 1e-4), and a TrainDeck run whose first validation loss is PyTorch's loss on the same data (within
 * 1e-4; its one epoch at a learning rate of 1e-9 moves no weight measurably).
 */
class PyTorchInitTest {

    @TempDir
    Path dir;

    @BeforeAll
    static void torchIsThere() {
        String why = TorchScripts.whyNotAvailable();
        assumeTrue(why == null, () -> "PyTorch init check skipped: " + why);
    }

    @Test
    void aVitWrittenByPyTorchGivesItsOutputsAndValidationLoss() throws Exception {
        TorchScripts.runWithPeers(dir, "torch_init.py", "vit", dir.toString());
        ModelConfig.Vit vit = new ModelConfig.Vit(4, 16, 2, 2, 2, true, 0, false, null);
        ModelInput input = new ModelInput(InputType.convolutional(12, 12, 1), Task.CLASSIFICATION, 3);
        INDArray images = npy("inputs.npy");
        assertSameOutputs(vit, input, images, npy("outputs.npy"));

        String config = """
                {"name": "vit-from-torch", "outputDir": "out", "seed": 1,
                 "model": {"type": "vit", "patch": 4, "width": 16, "depth": 2, "heads": 2, "mlpRatio": 2,
                           "classToken": true, "init": {"from": "torch.safetensors"}},
                 "data": {"train": %1$s, "validation": %1$s},
                 "stages": [{"name": "check", "epochs": 1, "batchSize": 24,
                             "optimizer": {"type": "sgd", "learningRate": 1e-9}}]}
                """.formatted("{\"type\": \"numpy\", \"inputs\": \"inputs.npy\", \"targets\": \"targets.npy\","
                + " \"layout\": \"channelsFirst\", \"numClasses\": 3}");
        assertFirstValidationLossIsPyTorchs(config);
    }

    @Test
    void theGptWrittenByPyTorchGivesItsOutputsAndValidationLoss() throws Exception {
        TorchScripts.runWithPeers(dir, "torch_init.py", "gpt", dir.toString());
        ModelConfig.Gpt gpt = new ModelConfig.Gpt(64, 2, 4, 4, 0, false, null);
        ModelInput input = new ModelInput(InputType.recurrent(11, 8), Task.SEQUENCE, 11, true);
        INDArray ids = npy("inputs.npy");
        // TrainDeck's sequence outputs are [batch, vocabulary, time]; PyTorch's module gives [batch, time, vocabulary]
        assertSameOutputs(gpt, input, ids.reshape(6, 1, 8), npy("outputs.npy").permute(0, 2, 1));

        String config = """
                {"name": "gpt-from-torch", "outputDir": "out", "seed": 1,
                 "model": {"type": "gpt", "width": 64, "depth": 2, "heads": 4, "mlpRatio": 4,
                           "init": {"from": "torch.npz"}},
                 "data": {"train": %1$s, "validation": %1$s},
                 "stages": [{"name": "check", "epochs": 1, "batchSize": 6,
                             "optimizer": {"type": "sgd", "learningRate": 1e-9}}]}
                """.formatted("{\"type\": \"numpy\", \"inputs\": \"stream.npy\", \"task\": \"sequence\","
                + " \"context\": 8, \"numClasses\": 11}");
        assertFirstValidationLossIsPyTorchs(config);
    }

    private void assertSameOutputs(ModelConfig model, ModelInput input, INDArray x, INDArray expected) {
        for (String file : List.of("torch.safetensors", "torch.npz")) {
            ComputationGraph net = ModelCompiler.build(model, input, 7);
            InitReport report = StartingWeights.load(new InitConfig(file, Map.of(), true), dir, net);
            assertThat(report.unused())
                    .as("every tensor of PyTorch's state_dict is used")
                    .isEmpty();
            double difference = net.outputSingle(x)
                    .castTo(DataType.FLOAT)
                    .sub(expected.castTo(DataType.FLOAT))
                    .amaxNumber()
                    .doubleValue();
            assertThat(difference)
                    .as("largest difference to PyTorch's outputs with %s", file)
                    .isLessThan(1e-4);
        }
    }

    private void assertFirstValidationLossIsPyTorchs(String config) throws Exception {
        RunResult run = TrainingRun.open(
                        RunRequest.of(ConfigParser.parse(config, dir).orThrow()))
                .runHere();
        assertThat(run.status()).isEqualTo(RunResult.Status.FINISHED);
        double torchLoss = Double.parseDouble(Files.readString(dir.resolve("loss.txt")));
        assertThat(run.lastMetrics().get("val/loss"))
                .as("TrainDeck's first validation loss against PyTorch's %s", torchLoss)
                .isCloseTo(torchLoss, within(1e-4));
    }

    private INDArray npy(String name) {
        return Nd4j.createFromNpyFile(dir.resolve(name).toFile()).castTo(DataType.FLOAT);
    }
}
