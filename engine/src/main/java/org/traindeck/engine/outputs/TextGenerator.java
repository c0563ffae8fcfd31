package org.traindeck.engine.outputs;

import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.indexing.NDArrayIndex;
import org.traindeck.engine.data.Vocabulary;

/**
 * Continues a prompt with a trained character model (a GPT on a text source): one character at a time, the model
 * sees at most the last {@code context} characters (the window it was trained on), and the next character is drawn
 * in Java from a random stream seeded by {@link Sampling#seed()}, so the same seed gives the same text. Not for use
 * from two threads at once (the graph is shared).
 */
public final class TextGenerator {

    private final UnaryOperator<INDArray> forward;
    private final Vocabulary vocabulary;
    private final Map<String, Integer> ids;
    private final int context;

    /**
     * @param graph a network whose input is token ids [batch, 1, steps] and whose output is the next-token
     *              probabilities at every step [batch, vocabulary, steps]
     * @param context the longest window the model was trained on
     */
    public TextGenerator(ComputationGraph graph, Vocabulary vocabulary, int context) {
        this(input -> graph.output(input.castTo(graph.params().dataType()))[0], vocabulary, context);
    }

    /** @param forward the network's forward pass in inference mode, as {@link #TextGenerator(ComputationGraph, Vocabulary, int)} */
    public TextGenerator(UnaryOperator<INDArray> forward, Vocabulary vocabulary, int context) {
        if (context < 1) {
            throw new IllegalArgumentException("context " + context);
        }
        this.forward = forward;
        this.vocabulary = vocabulary;
        this.ids = vocabulary.ids();
        this.context = context;
    }

    public int context() {
        return context;
    }

    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /** The continuation of {@code prompt} (without the prompt). */
    public String generate(String prompt, Sampling sampling) {
        return generate(prompt, sampling, piece -> {});
    }

    /** As {@link #generate(String, Sampling)}, handing each new character to {@code eachCharacter} as it is drawn. */
    public String generate(String prompt, Sampling sampling, Consumer<String> eachCharacter) {
        int[] tokens = encode(prompt);
        int[] all = Arrays.copyOf(tokens, tokens.length + sampling.tokens());
        int length = tokens.length;
        SplittableRandom random = new SplittableRandom(sampling.seed());
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < sampling.tokens(); i++) {
            int from = Math.max(0, length - context);
            float[] probabilities = nextProbabilities(Arrays.copyOfRange(all, from, length));
            int next = pick(probabilities, sampling, random);
            all[length++] = next;
            String piece = vocabulary.tokens().get(next);
            out.append(piece);
            eachCharacter.accept(piece);
        }
        return out.toString();
    }

    /**
     * The model's probabilities for the character after {@code window} (1 to {@code context} ids). A shorter window
     * is padded after its end to the trained length (the token embedding takes no other) and read at its last real
     * position: a causal model, as a GPT is, never looks at the padding.
     */
    public float[] nextProbabilities(int[] window) {
        if (window.length == 0 || window.length > context) {
            throw new IllegalArgumentException("a window of 1.." + context + " tokens, not " + window.length);
        }
        float[] x = new float[context];
        for (int i = 0; i < window.length; i++) {
            x[i] = window[i];
        }
        INDArray output = forward.apply(Nd4j.create(x, new long[] {1, 1, context}, DataType.FLOAT));
        if (output.rank() != 3 || output.size(1) != vocabulary.size()) {
            throw new IllegalStateException("the model's output is " + Arrays.toString(output.shape()) + ", not [1, "
                    + vocabulary.size() + ", steps]: not a next-character model for this vocabulary");
        }
        INDArray last = output.get(NDArrayIndex.point(0), NDArrayIndex.all(), NDArrayIndex.point(window.length - 1));
        return last.castTo(DataType.FLOAT).toFloatVector();
    }

    /** The prompt's token ids; a character the model never saw is refused with its position. */
    public int[] encode(String prompt) {
        if (prompt == null || prompt.isEmpty()) {
            throw new PredictionInputException(
                    "the prompt is empty: give at least one character to continue (--prompt TEXT)");
        }
        int[] codePoints = prompt.codePoints().toArray();
        int[] tokens = new int[codePoints.length];
        for (int i = 0; i < codePoints.length; i++) {
            Integer id = ids.get(new String(Character.toChars(codePoints[i])));
            if (id == null) {
                throw new PredictionInputException(
                        "the prompt's character " + describe(codePoints[i]) + " at position " + i
                                + " (counting from 0) is not in the model's vocabulary of " + vocabulary.size()
                                + " characters: "
                                + shown(vocabulary));
            }
            tokens[i] = id;
        }
        return tokens;
    }

    /** The index drawn from {@code probabilities}: argmax at temperature 0 (the lowest id on a tie). */
    static int pick(float[] probabilities, Sampling sampling, SplittableRandom random) {
        int best = 0;
        for (int i = 1; i < probabilities.length; i++) {
            if (probabilities[i] > probabilities[best]) {
                best = i;
            }
        }
        if (sampling.temperature() == 0) {
            return best;
        }
        int[] candidates = candidates(probabilities, sampling.topK());
        double logMax = Math.log(probabilities[best]);
        double[] weights = new double[candidates.length];
        double sum = 0;
        for (int i = 0; i < candidates.length; i++) {
            // p^(1/T), scaled by the largest so that a low temperature cannot underflow every weight to 0
            weights[i] = Math.exp((Math.log(probabilities[candidates[i]]) - logMax) / sampling.temperature());
            sum += weights[i];
        }
        double u = random.nextDouble() * sum;
        for (int i = 0; i < candidates.length; i++) {
            u -= weights[i];
            if (u < 0) {
                return candidates[i];
            }
        }
        return best;
    }

    /** Ids by falling probability (the lowest id first on a tie), the first {@code topK} of them (all when 0). */
    private static int[] candidates(float[] probabilities, int topK) {
        Integer[] order = new Integer[probabilities.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(
                order,
                (a, b) -> probabilities[a] != probabilities[b]
                        ? Float.compare(probabilities[b], probabilities[a])
                        : Integer.compare(a, b));
        int k = topK == 0 ? order.length : Math.min(topK, order.length);
        int[] out = new int[k];
        for (int i = 0; i < k; i++) {
            out[i] = order[i];
        }
        return out;
    }

    private static String describe(int codePoint) {
        String code = String.format("U+%04X", codePoint);
        return Character.isISOControl(codePoint) || Character.isWhitespace(codePoint)
                ? code
                : "'" + new String(Character.toChars(codePoint)) + "' (" + code + ")";
    }

    private static String shown(Vocabulary vocabulary) {
        StringBuilder s = new StringBuilder();
        for (String token : vocabulary.tokens()) {
            int c = token.codePointAt(0);
            s.append(Character.isISOControl(c) || Character.isWhitespace(c) ? String.format("U+%04X", c) : token)
                    .append(' ');
        }
        return s.toString().trim();
    }
}
