package org.traindeck.engine.data;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The smallest and largest value a network was trained on, as it saw them (after a source's {@code scale} and
 * {@code normalize}), read from up to {@link #SAMPLES} samples (and {@link #VALUES} values) spread evenly over the
 * training split: a bounded cost whatever the data's size, and enough to tell inputs in other units (0–255 for a
 * model trained on 0–1).
 */
public record InputRange(double min, double max) {

    static final int SAMPLES = 4096;
    /** At most this many values are read, however large each sample (16M floats: well under a second). */
    static final long VALUES = 1L << 24;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The range of the data's (single) input; null for token ids, named inputs and no samples, where none applies. */
    public static InputRange of(Dataset data) {
        if (data.namedInputs() || data.shape() instanceof SampleShape.Tokens || data.size() == 0) {
            return null;
        }
        long affordable = Math.max(16, VALUES / Math.max(1, data.featureCount()));
        int picked = (int) Math.min(Math.min(SAMPLES, affordable), data.size());
        float[] sample = new float[data.featureCount()];
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (int k = 0; k < picked; k++) {
            data.copyFeatures((int) ((long) k * data.size() / picked), sample, 0);
            for (float v : sample) {
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        return Double.isFinite(min) && Double.isFinite(max) ? new InputRange(min, max) : null;
    }

    public void write(Path file) throws IOException {
        Files.writeString(file, String.format(Locale.ROOT, "{\"min\": %s, \"max\": %s}%n", min, max));
    }

    /** The range a run folder recorded, or null where it recorded none (runs from before it, or a damaged file). */
    public static InputRange read(Path file) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(file.toFile());
            JsonNode min = n == null ? null : n.get("min");
            JsonNode max = n == null ? null : n.get("max");
            return min != null && max != null && min.isNumber() && max.isNumber() && min.asDouble() <= max.asDouble()
                    ? new InputRange(min.asDouble(), max.asDouble())
                    : null;
        } catch (IOException e) {
            return null;
        }
    }

    public double span() {
        return max - min;
    }
}
