package org.traindeck.engine.use.predict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.cli.MainAccess;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.outputs.Sampling;
import org.traindeck.engine.outputs.TextGenerator;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;
import org.traindeck.engine.use.TrainedModel;

/**
 * A GPT trained briefly on a text: {@code predict --prompt} continues it the same way for the same seed, greedily as
 * the argmax of the trained network, from the command line too; windows of token ids as NumPy give the network's
 * next-token probabilities [N, T, vocabulary]; a character it never saw is refused by position.
 */
class TextPredictionTest {

    @TempDir
    static Path dir;

    private static Path run;

    @BeforeAll
    static void trainAGpt() throws Exception {
        RunResult result = TrainingRun.open(RunRequest.of(
                        ConfigParser.parse("""
                {"name": "gpt", "outputDir": "out", "seed": 5,
                 "model": {"type": "gpt", "width": 16, "depth": 1, "heads": 2},
                 "data": {"train": {"type": "text", "path": "%s", "context": 16, "limit": 300}, "validationSplit": 0.1},
                 "stages": [{"epochs": 1, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}]}
                """.formatted(TestPaths.repoRoot().resolve("data/text/gpl-3.txt")), dir)
                                .orThrow()))
                .runHere();
        assertThat(result.status()).isEqualTo(RunResult.Status.FINISHED);
        run = result.runDir();
    }

    private static PredictionReport continueWith(String prompt, Sampling sampling) throws Exception {
        return PredictionJob.run(
                PredictionModel.of(TrainedModel.open(run, false)),
                PredictionRequest.continuing(run, false, prompt, sampling, null, false),
                piece -> {});
    }

    @Test
    void aContinuationIsTheSameForASeedAndGreedyIsTheTrainedNetworksArgmax() throws Exception {
        String sampled =
                continueWith("the Program", new Sampling(30, 0.8, 5, 17)).continuation();
        assertThat(sampled.codePointCount(0, sampled.length())).isEqualTo(30);
        assertThat(continueWith("the Program", new Sampling(30, 0.8, 5, 17)).continuation())
                .isEqualTo(sampled);

        TrainedModel model = TrainedModel.open(run, false);
        String greedy = continueWith("the Program", Sampling.greedy(12)).continuation();
        assertThat(greedy)
                .isEqualTo(new TextGenerator(model.network(), model.vocabulary(), 16)
                        .generate("the Program", Sampling.greedy(12)));
    }

    @Test
    void theCommandLinePrintsTheContinuationAndRefusesAnUnknownCharacter() throws Exception {
        String expected = continueWith("License", new Sampling(20, 1.0, 0, 3)).continuation();
        MainAccess.Result ok =
                MainAccess.run("predict", run.toString(), "--prompt", "License", "--tokens", "20", "--seed", "3");
        assertThat(ok.exitCode()).as(ok.stderr()).isZero();
        assertThat(ok.stdout()).startsWith("License" + expected);

        MainAccess.Result bad = MainAccess.run("predict", run.toString(), "--prompt", "Lizenz für", "--tokens", "5");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).contains("'ü' (U+00FC) at position 8").contains("vocabulary");
        assertThat(bad.stdout()).isEmpty();

        MainAccess.Result temperature =
                MainAccess.run("predict", run.toString(), "--prompt", "a", "--temperature", "-1");
        assertThat(temperature.exitCode()).isEqualTo(2);
        assertThat(temperature.stderr()).contains("--temperature is -1.0");

        Path text = dir.resolve("continuation.txt");
        MainAccess.Result written = MainAccess.run(
                "predict",
                run.toString(),
                "--prompt",
                "License",
                "--tokens",
                "20",
                "--seed",
                "3",
                "--out",
                text.toString());
        assertThat(written.exitCode()).as(written.stderr()).isZero();
        assertThat(Files.readString(text)).isEqualTo(expected);
    }

    @Test
    void windowsOfTokenIdsGiveTheNextTokenProbabilities() throws Exception {
        TrainedModel model = TrainedModel.open(run, false);
        int vocabulary = model.vocabulary().size();
        long[] ids = new long[2 * 16];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (i * 7) % vocabulary;
        }
        Path in = dir.resolve("windows.npy");
        TestNpy.int64(in, new long[] {2, 16}, ids);
        Path out = dir.resolve("next.npy");
        MainAccess.Result predicted = MainAccess.run("predict", run.toString(), in.toString(), "--out", out.toString());
        assertThat(predicted.exitCode()).as(predicted.stderr()).isZero();
        assertThat(predicted.stdout()).contains("2 predictions of shape [16, " + vocabulary + "] each");
        MainAccess.Result scaled = MainAccess.run(
                "predict",
                run.toString(),
                in.toString(),
                "--out",
                dir.resolve("s.npy").toString(),
                "--scale",
                "2");
        assertThat(scaled.exitCode()).isEqualTo(2);
        assertThat(scaled.stderr()).contains("--scale divides real values; token ids are given as they are");

        float[] x = new float[ids.length];
        for (int i = 0; i < ids.length; i++) {
            x[i] = ids[i];
        }
        INDArray want = model.output(Nd4j.create(x, new long[] {2, 1, 16}, DataType.FLOAT))[0];
        // [N, T, vocabulary], as PyTorch's users expect, not the network's [N, vocabulary, T]
        INDArray perStep = want.permute(0, 2, 1).dup('c');
        assertThat(TestNpy.shape(out)).containsExactly(2, 16, vocabulary);
        assertThat(TestNpy.floats(out))
                .containsExactly(perStep.reshape(perStep.length()).toFloatVector(), within(1e-6f));
        assertThat(TestNpy.shape(dir.resolve("next.classes.npy"))).containsExactly(2, 16);
        assertThat(TestNpy.longs(dir.resolve("next.classes.npy")))
                .containsExactly(want.argMax(1).reshape(2 * 16).toLongVector());

        ids[20] = vocabulary + 3;
        Path outside = dir.resolve("outside.npy");
        TestNpy.int64(outside, new long[] {2, 16}, ids);
        assertThatThrownBy(() -> PredictionJob.run(
                        PredictionModel.of(model),
                        PredictionRequest.onInputs(run, false, List.of(outside), dir.resolve("o.npy"), false, false),
                        p -> {}))
                .hasMessageContaining("token id " + (vocabulary + 3) + " at sample 1, index [1, 4]")
                .hasMessageContaining("vocabulary 0.." + (vocabulary - 1));
        Path floats = dir.resolve("floats.npy");
        TestNpy.float32(floats, new long[] {1, 16}, new float[16]);
        assertThatThrownBy(() -> PredictionJob.run(
                        PredictionModel.of(model),
                        PredictionRequest.onInputs(run, false, List.of(floats), dir.resolve("o.npy"), false, false),
                        p -> {}))
                .hasMessageContaining("float32")
                .hasMessageContaining("token ids are whole numbers");
        assertThatThrownBy(() -> PredictionJob.run(
                        PredictionModel.of(model),
                        PredictionRequest.onInputs(run, false, List.of(), dir.resolve("o.npy"), false, false),
                        p -> {}))
                .hasMessageContaining("give --prompt TEXT");
    }
}
