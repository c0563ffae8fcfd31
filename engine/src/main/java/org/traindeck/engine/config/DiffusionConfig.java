package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A denoising diffusion task: {@code timesteps} noise levels on a {@code schedule} ("linear" β from 1e-4 to 0.02, or
 * "cosine"), the network predicting the noise ("epsilon"), the velocity ("v") or the clean sample ("x0") from the
 * noised sample and its timestep, its squared error weighted per example by min-SNR-γ ("minSnr") or not ("none").
 * Validation may generate samples during training ({@code sampling}, null: never) and compare their projections with
 * conditioning inputs that are views of the sample ({@code projections}: input name → the axis it is the mean along).
 */
public record DiffusionConfig(
        int timesteps,
        String schedule,
        String prediction,
        String lossWeighting,
        @JsonInclude(JsonInclude.Include.NON_NULL) DiffusionSampling sampling,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> projections) {

    public DiffusionConfig {
        projections = projections == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(projections));
    }

    /** Without sampling during training. */
    public DiffusionConfig(int timesteps, String schedule, String prediction, String lossWeighting) {
        this(timesteps, schedule, prediction, lossWeighting, null, null);
    }

    /** The graph input holding the noised sample x_t. */
    public static final String NOISY = "noisy";

    /** The graph input holding each example's timestep t, one value. */
    public static final String TIMESTEP = "timestep";

    /** The graph's inputs for conditioning inputs {@code conditioning}: the noised sample, its timestep, then those. */
    public static List<String> inputNames(List<String> conditioning) {
        List<String> names = new ArrayList<>(List.of(NOISY, TIMESTEP));
        names.addAll(conditioning);
        return List.copyOf(names);
    }

    /** Whether {@code name} is one of the inputs the diffusion task makes (not an array of the data). */
    public static boolean made(String name) {
        return NOISY.equals(name) || TIMESTEP.equals(name);
    }
}
