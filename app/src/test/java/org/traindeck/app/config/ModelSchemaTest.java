package org.traindeck.app.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.config.read.ConfigSchema;

/** Every model type of the schema gets a field per property, each with the control its kind takes. */
class ModelSchemaTest {

    @Test
    void everyModelTypesPropertiesAreTheSchemas() {
        List<String> types = ConfigSchema.choices("model.type");
        assertThat(types).contains("mlp", "lenet", "vit", "gpt", "graph", "zoo");
        for (JsonNode variant : ConfigSchema.json().path("$defs").path("model").path("oneOf")) {
            String type = variant.path("properties").path("type").path("const").asText();
            List<String> keys = new ArrayList<>();
            variant.path("properties").fieldNames().forEachRemaining(keys::add);
            keys.remove("type");
            assertThat(ModelSchema.properties(type))
                    .as(type)
                    .extracting(ModelSchema.Property::key)
                    .containsExactlyElementsOf(keys);
        }
    }

    @Test
    void onlyAGraphsNodesAreLeftToTheJsonTab() {
        for (String type : ConfigSchema.choices("model.type")) {
            List<String> summarised = ModelSchema.properties(type).stream()
                    .filter(p -> p.kind() == ModelSchema.Kind.OTHER)
                    .map(ModelSchema.Property::key)
                    .toList();
            // the starting weights (a file, a map of renames) are written in the JSON tab, as a graph's nodes are
            assertThat(summarised)
                    .as(type)
                    .isEqualTo(type.equals("graph") ? List.of("layers", "head", "init") : List.of("init"));
        }
    }

    @Test
    void aTypesOwnDefaultAndRangeAreItsHint() {
        ModelSchema.Property gptWidth = ModelSchema.properties("gpt").stream()
                .filter(p -> p.key().equals("width"))
                .findFirst()
                .orElseThrow();
        assertThat(gptWidth.kind()).isEqualTo(ModelSchema.Kind.INTEGER);
        assertThat(gptWidth.defaultText()).isEqualTo("128");
        assertThat(gptWidth.hint())
                .isEqualTo("Features per token; heads must divide it. A whole number ≥ 8 and ≤ 4096. Default: 128.");
        ModelSchema.Property activation = ModelSchema.properties("mlp").get(0);
        assertThat(activation.kind()).isEqualTo(ModelSchema.Kind.CHOICE);
        assertThat(activation.choices()).isEqualTo(ConfigSchema.choices("model.activation"));
        assertThat(activation.defaultText()).isEqualTo("relu");
        assertThat(ModelSchema.properties("lenet").stream()
                        .filter(p -> p.key().equals("channels"))
                        .findFirst()
                        .orElseThrow()
                        .kind())
                .isEqualTo(ModelSchema.Kind.INT_LIST);
        assertThat(ModelSchema.properties("unknown")).isEmpty();
    }
}
