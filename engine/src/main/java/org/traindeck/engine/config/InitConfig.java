package org.traindeck.engine.config;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a model's starting weights come from: a safetensors or npz file under the export's names, or a TrainDeck run
 * folder or checkpoint. {@code map} renames the file's tensors (a regular expression matched against the whole name →
 * the replacement, {@code $1} for its groups), tried in order, the first that matches wins. With {@code strict} every
 * tensor of the model must be in the file with its shape; without, a node whose tensors are missing or differ keeps
 * its initialisation and is reported.
 */
@JsonPropertyOrder({"from", "map", "strict"})
public record InitConfig(
        @JsonSerialize(using = ConfigPathSerializer.class) String from,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, String> map,
        boolean strict) {

    public InitConfig {
        map = map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
    }
}
