package org.traindeck.engine.outputs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.data.Vocabulary;
import org.traindeck.engine.model.ModelCompiler;

/**
 * Generation on a GPT built from a text config: greedy is the argmax of the model's own output at each step, a seed
 * gives one continuation, the window is cut to the context, and a character the model never saw is refused by position.
 */
class TextGeneratorTest {

    private static final int CONTEXT = 16;
    private static ComputationGraph graph;
    private static Vocabulary vocabulary;

    @BeforeAll
    static void build(@TempDir Path dir) {
        String json = """
                {"name": "gen", "outputDir": "out", "seed": 5,
                 "model": {"type": "gpt", "width": 16, "depth": 1, "heads": 2},
                 "data": {"train": {"type": "text", "path": "%s", "context": %d, "limit": 200}, "validationSplit": 0.1},
                 "stages": [{"epochs": 1, "batchSize": 16, "optimizer": {"type": "adam", "learningRate": 0.003}}]}
                """.formatted(TestPaths.repoRoot().resolve("data/text/gpl-3.txt"), CONTEXT);
        RunConfig config = ConfigParser.parse(json, dir).orThrow();
        try (DataLoader.Loaded data = DataLoader.load(config, config.data(), "data")) {
            vocabulary = data.train().vocabulary();
            graph = ModelCompiler.build(
                    config.model(), ModelCompiler.inputOf(config.model(), data.train()), config.seed());
        }
    }

    @Test
    void greedyTakesTheArgmaxOfTheModelsOutputAtEveryStep() {
        TextGenerator generator = new TextGenerator(graph, vocabulary, CONTEXT);
        String prompt = "This License";
        List<String> streamed = new ArrayList<>();
        String text = generator.generate(prompt, Sampling.greedy(20), streamed::add);

        assertThat(text.codePointCount(0, text.length())).isEqualTo(20);
        assertThat(String.join("", streamed)).isEqualTo(text);
        int[] tokens = generator.encode(prompt + text);
        for (int i = prompt.length(); i < tokens.length; i++) {
            int[] window = Arrays.copyOfRange(tokens, Math.max(0, i - CONTEXT), i);
            float[] p = generator.nextProbabilities(window);
            int argmax = 0;
            for (int j = 1; j < p.length; j++) {
                argmax = p[j] > p[argmax] ? j : argmax;
            }
            assertThat(tokens[i]).as("token %d", i).isEqualTo(argmax);
        }
        assertThat(generator.generate(prompt, new Sampling(20, 1.5, 1, 99)))
                .as("top-1 is greedy")
                .isEqualTo(text);
    }

    @Test
    void aSeedGivesOneContinuationAndAnotherSeedAnother() {
        TextGenerator generator = new TextGenerator(graph, vocabulary, CONTEXT);
        Sampling sampling = new Sampling(40, 1.0, 0, 42);
        String first = generator.generate("the ", sampling);
        assertThat(new TextGenerator(graph, vocabulary, CONTEXT).generate("the ", sampling))
                .isEqualTo(first);
        assertThat(generator.generate("the ", new Sampling(40, 1.0, 0, 43))).isNotEqualTo(first);
        assertThat(generator.generate("the ", new Sampling(40, 1.0, 3, 42))).isNotEqualTo(first);
    }

    @Test
    void thePromptIsCutToTheContextWindowLikeTraining() {
        TextGenerator generator = new TextGenerator(graph, vocabulary, CONTEXT);
        String longPrompt = "you may convey a work based on the Program, or the modifications";
        String tail = longPrompt.substring(longPrompt.length() - CONTEXT);
        assertThat(generator.generate(longPrompt, Sampling.greedy(10)))
                .isEqualTo(generator.generate(tail, Sampling.greedy(10)));
        assertThat(generator.generate("a", Sampling.greedy(0))).isEmpty();
    }

    @Test
    void aShortWindowGivesWhatTheSamePositionOfAFullWindowGives() {
        TextGenerator generator = new TextGenerator(graph, vocabulary, CONTEXT);
        int[] full = generator.encode("permission to co");
        float[] x = new float[CONTEXT];
        for (int i = 0; i < CONTEXT; i++) {
            x[i] = full[i];
        }
        INDArray output = graph.output(Nd4j.create(x, new long[] {1, 1, CONTEXT}, DataType.FLOAT))[0];
        for (int length : new int[] {1, 5, CONTEXT}) {
            float[] atPosition = output.get(NDArrayIndex.point(0), NDArrayIndex.all(), NDArrayIndex.point(length - 1))
                    .toFloatVector();
            assertThat(generator.nextProbabilities(Arrays.copyOf(full, length)))
                    .as("window of %d", length)
                    .containsExactly(atPosition, within(1e-6f));
        }
    }

    @Test
    void characterOutsideTheVocabularyIsRefusedWithItsPosition() {
        TextGenerator generator = new TextGenerator(graph, vocabulary, CONTEXT);
        assertThatThrownBy(() -> generator.generate("the €uro", Sampling.greedy(5)))
                .isInstanceOf(PredictionInputException.class)
                .hasMessageContaining("'€' (U+20AC)")
                .hasMessageContaining("position 4")
                .hasMessageContaining("vocabulary");
        assertThatThrownBy(() -> generator.generate("", Sampling.greedy(5))).hasMessageContaining("prompt is empty");
        assertThatThrownBy(() -> new Sampling(5, -1, 0, 1)).hasMessageContaining("--temperature is -1.0");
        assertThatThrownBy(() -> new Sampling(5, 1, -2, 1)).hasMessageContaining("--top-k is -2");
    }
}
