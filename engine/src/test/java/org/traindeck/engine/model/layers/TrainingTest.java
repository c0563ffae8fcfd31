package org.traindeck.engine.model.layers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ElementWiseVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.EmbeddingSequenceLayer;
import org.deeplearning4j.nn.conf.layers.RnnOutputLayer;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.activations.Activation;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.lossfunctions.LossFunctions;

/** A tiny ViT and a tiny causal GPT learn small deterministic tasks in a few dozen steps. */
class TrainingTest {

    private static final int STEPS = 50;

    @Test
    void tinyVitLearnsWhichQuadrantIsBright() {
        int size = 8;
        int examples = 64;
        Random random = new Random(7);
        INDArray images = Nd4j.create(DataType.FLOAT, examples, 1, size, size);
        INDArray labels = Nd4j.zeros(DataType.FLOAT, examples, 4);
        for (int i = 0; i < examples; i++) {
            int quadrant = i % 4;
            labels.putScalar(i, quadrant, 1);
            for (int r = 0; r < size; r++) {
                for (int c = 0; c < size; c++) {
                    boolean lit = r / 4 == quadrant / 2 && c / 4 == quadrant % 2 && random.nextDouble() < 0.6;
                    images.putScalar(new long[] {i, 0, r, c}, (lit ? 1.0 : 0.0) + 0.2 * random.nextGaussian());
                }
            }
        }
        ComputationGraph vit =
                new ComputationGraph(TinyVit.configuration(DataType.FLOAT, new Adam(3e-3), size, 1, 4, 16, 2, 2, 4));
        vit.init();

        double first = Double.NaN;
        for (int step = 0; step < STEPS; step++) {
            vit.fit(new INDArray[] {images}, new INDArray[] {labels});
            if (step == 0) {
                first = vit.score();
            }
        }
        assertThat(vit.score())
                .as("loss after %d steps, first %s", STEPS, first)
                .isLessThan(0.3 * first);
        INDArray predicted = vit.outputSingle(images).argMax(1);
        assertThat(predicted
                        .eq(labels.argMax(1))
                        .castTo(DataType.FLOAT)
                        .meanNumber()
                        .doubleValue())
                .isGreaterThan(0.9);
    }

    @Test
    void tinyGptLearnsARepeatedWord() {
        String text = "hello ".repeat(10);
        String vocabulary = "helo ";
        int length = 8;
        int windows = 6; // every phase of the six-character word
        INDArray inputs = Nd4j.create(DataType.FLOAT, windows, 1, length);
        INDArray targets = Nd4j.zeros(DataType.FLOAT, windows, vocabulary.length(), length);
        for (int w = 0; w < windows; w++) {
            for (int t = 0; t < length; t++) {
                inputs.putScalar(new long[] {w, 0, t}, vocabulary.indexOf(text.charAt(w + t)));
                targets.putScalar(new long[] {w, vocabulary.indexOf(text.charAt(w + t + 1)), t}, 1);
            }
        }
        ComputationGraph gpt = new ComputationGraph(gptConfiguration(vocabulary.length(), length, 16));
        gpt.init();

        double first = Double.NaN;
        for (int step = 0; step < 60; step++) {
            gpt.fit(new INDArray[] {inputs}, new INDArray[] {targets});
            if (step == 0) {
                first = gpt.score();
            }
        }
        assertThat(gpt.score()).as("loss, first %s", first).isLessThan(0.2 * first);
        // after 'l' the next letter is 'l' or 'o': only the token before tells, so from position 1 on all are right
        INDArray predicted = gpt.outputSingle(inputs).argMax(1);
        INDArray expected = targets.argMax(1);
        for (int w = 0; w < windows; w++) {
            for (int t = 1; t < length; t++) {
                assertThat(predicted.getInt(w, t))
                        .as("window %d, position %d", w, t)
                        .isEqualTo(expected.getInt(w, t));
            }
        }
    }

    private static ComputationGraphConfiguration gptConfiguration(int vocabulary, int length, int width) {
        ComputationGraphConfiguration.GraphBuilder b =
                TinyGraphs.base(DataType.FLOAT, new Adam(1e-2), InputType.recurrent(vocabulary, length));
        b.addLayer(
                        "embed",
                        new EmbeddingSequenceLayer.Builder()
                                .nIn(vocabulary)
                                .nOut(width)
                                .inputLength(length)
                                .build(),
                        "in")
                .addLayer("pos", new PositionEmbedding(length), "embed");
        String stream = "pos";
        b.addLayer("b0_norm1", new LayerNorm(), stream)
                .addLayer("b0_attn", new SelfAttention(width, 2, true), "b0_norm1")
                .addVertex("b0_res1", new ElementWiseVertex(ElementWiseVertex.Op.Add), stream, "b0_attn");
        b.addLayer("norm", new LayerNorm(), "b0_res1")
                .addLayer(
                        "out",
                        new RnnOutputLayer.Builder(LossFunctions.LossFunction.MCXENT)
                                .activation(Activation.SOFTMAX)
                                .nOut(vocabulary)
                                .build(),
                        "norm")
                .setOutputs("out");
        return b.build();
    }
}
