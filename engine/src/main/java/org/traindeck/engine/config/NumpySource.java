package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * NumPy arrays: {@code inputs} and {@code targets} each a {@code .npy} file or {@code file.npz:name}, samples along
 * the first axis; images and volumes channels-last ([N, H, W, C], as NumPy and Keras) or channels-first ([N, C, H,
 * W], as PyTorch). {@code scale} multiplies the inputs (1/255 for bytes); {@code noise} adds Gaussian noise to a
 * reconstruction's training inputs (a denoising autoencoder). For next-token prediction the inputs are one stream of
 * token ids cut into windows of {@code context}. A diffusion source may {@code derive} inputs from its targets (a
 * cascade's low-resolution conditioning), which come after its own inputs.
 */
@JsonPropertyOrder({"inputs", "targets", "task", "layout", "numClasses", "context", "scale", "noise", "limit"})
public record NumpySource(
        @JsonInclude(JsonInclude.Include.NON_EMPTY) NumpyInputs inputs,

        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonSerialize(using = ConfigPathSerializer.class)
        String targets,

        @JsonInclude(JsonInclude.Include.NON_NULL) @JsonSerialize(using = ConfigPathSerializer.class)
        String targetMask,

        Task task,
        String layout,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer numClasses,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer context,
        double scale,
        double noise,
        @JsonInclude(JsonInclude.Include.NON_NULL) DiffusionConfig diffusion,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, DeriveConfig> derive,
        @JsonInclude(JsonInclude.Include.NON_DEFAULT) int limit)
        implements SourceConfig {
    public NumpySource {
        derive = derive == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(derive));
    }

    @Override
    public String type() {
        return "numpy";
    }

    @Override
    public boolean isImage() {
        return false;
    }

    @Override
    public List<String> paths() {
        List<String> files = new ArrayList<>(inputs.files());
        for (String spec : Arrays.asList(targets, targetMask)) {
            if (spec != null && !files.contains(fileOf(spec))) {
                files.add(fileOf(spec));
            }
        }
        return List.copyOf(files);
    }

    @Override
    public List<String> inputNames() {
        if (task != Task.DIFFUSION) {
            return inputs.names();
        }
        List<String> conditioning = new ArrayList<>(inputs.names());
        conditioning.addAll(derive.keySet());
        return DiffusionConfig.inputNames(conditioning);
    }

    @Override
    public Float pixelScale() {
        return (float) scale;
    }

    @Override
    public double reconstructionNoise() {
        return noise;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.numpy(this);
    }

    /** The file of "x.npy" or "data.npz:x". */
    public static String fileOf(String spec) {
        int colon = spec.lastIndexOf(':');
        return colon > 0 && spec.substring(0, colon).endsWith(".npz") ? spec.substring(0, colon) : spec;
    }

    @Override
    public boolean channelsLast() {
        return "channelsLast".equals(layout);
    }
}
