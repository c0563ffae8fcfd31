package org.traindeck.engine.outputs;

/**
 * How a continuation is drawn: {@code tokens} new characters, each drawn from the model's next-character
 * distribution sharpened by {@code temperature} (0 takes the most likely character every time) among the
 * {@code topK} most likely ones (0 keeps them all), from a random stream started at {@code seed}.
 */
public record Sampling(int tokens, double temperature, int topK, long seed) {

    public Sampling {
        if (tokens < 0) {
            throw new PredictionInputException(
                    "--tokens is " + tokens + ": the number of characters to generate is 0 or more");
        }
        if (!(temperature >= 0) || Double.isInfinite(temperature)) {
            throw new PredictionInputException(
                    "--temperature is " + temperature + ": it is 0 (always the most likely character) or a "
                            + "positive number (1 samples the model's own distribution)");
        }
        if (topK < 0) {
            throw new PredictionInputException(
                    "--top-k is " + topK + ": it is 0 (every character) or a positive number");
        }
    }

    /** The most likely character every time: the same continuation whatever the seed. */
    public static Sampling greedy(int tokens) {
        return new Sampling(tokens, 0, 0, 0);
    }
}
