package org.traindeck.engine.use.predict;

import java.nio.file.Path;
import java.util.List;
import org.traindeck.engine.outputs.Sampling;

/**
 * What {@code traindeck predict} asks: the model (a run folder or checkpoint, its weights or their average), the
 * inputs and where the predictions go ({@code .npy}, {@code .csv}, or a folder of PNG masks; {@code force} replaces
 * an existing one, {@code overlays} adds pictures of the masks over their images), or for a text model a prompt to
 * continue ({@code out} optional then); a diffusion model is sampled as {@code generation} says; NumPy inputs are read
 * and outputs laid out as {@code arrays} says.
 */
public record PredictionRequest(
        Path model,
        boolean ema,
        List<Path> inputs,
        Path out,
        boolean force,
        boolean overlays,
        String prompt,
        Sampling sampling,
        Generation generation,
        ArrayOptions arrays) {

    public PredictionRequest {
        inputs = inputs == null ? List.of() : List.copyOf(inputs);
        generation = generation == null ? Generation.DEFAULT : generation;
        arrays = arrays == null ? ArrayOptions.DEFAULT : arrays;
    }

    /** The same request, sampling a diffusion model as {@code g} says. */
    public PredictionRequest generating(Generation g) {
        return new PredictionRequest(model, ema, inputs, out, force, overlays, prompt, sampling, g, arrays);
    }

    /** The same request, reading and writing arrays as {@code a} says. */
    public PredictionRequest withArrays(ArrayOptions a) {
        return new PredictionRequest(model, ema, inputs, out, force, overlays, prompt, sampling, generation, a);
    }

    /** Predictions on inputs, written to {@code out}. */
    public static PredictionRequest onInputs(
            Path model, boolean ema, List<Path> inputs, Path out, boolean force, boolean overlays) {
        return new PredictionRequest(model, ema, inputs, out, force, overlays, null, null, null, null);
    }

    /** A continuation of {@code prompt}, printed (and written to {@code out} when given). */
    public static PredictionRequest continuing(
            Path model, boolean ema, String prompt, Sampling sampling, Path out, boolean force) {
        return new PredictionRequest(model, ema, List.of(), out, force, false, prompt, sampling, null, null);
    }
}
