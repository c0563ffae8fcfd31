package org.traindeck.engine.config.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ScheduleConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.ValidationResult;

/**
 * The validator takes its ranges, choices and defaults from the schema, not from a copy of its own: edit a bound, an
 * enum or a default in the schema and the validator follows, with its usual messages.
 */
class SchemaIsTheSourceTest {

    private static final String CONFIG = """
            {"name": "s", "model": {"type": "lenet", "channels": [8, 300], "kernelSize": 3},
             "data": {"train": {"type": "synthetic", "samples": 200, "imageShape": [8, 8, 1]}},
             "stages": [{"epochs": 6, "precision": "float16", "optimizer": {"type": "sgd", "learningRate": 0.5}}]}
            """;

    @Test
    void editingTheSchemaChangesWhatTheValidatorAccepts(@TempDir Path dir) {
        assertThat(ConfigParser.parse(CONFIG, dir).errors()).isEmpty();

        ObjectNode schema = (ObjectNode) ConfigSchema.json();
        ObjectNode stage = (ObjectNode) schema.at("/$defs/stage/properties");
        ((ObjectNode) stage.get("epochs")).put("maximum", 5);
        ArrayNode precisions = ((ObjectNode) stage.get("precision")).putArray("enum");
        precisions.add("float32");
        ((ObjectNode) schema.at("/$defs/optimizer/properties/learningRate")).put("maximum", 0.1);
        ((ObjectNode) schema.at("/$defs/model/oneOf/1/properties/channels/items")).put("maximum", 256);

        ValidationResult edited = ConfigParser.parse(CONFIG, dir, SchemaNode.of(schema));
        assertThat(edited.errors())
                .extracting(p -> p.path() + ": " + p.message())
                .contains(
                        "stages[0].epochs: must be between 1 and 5",
                        "stages[0].optimizer.learningRate: must be > 0 and ≤ 0.1, not 0.5",
                        "model.channels[1]: must be between 1 and 256");
        assertThat(edited.errors()).anySatisfy(p -> {
            assertThat(p.path()).isEqualTo("stages[0].precision");
            assertThat(p.message())
                    .isEqualTo("unknown precision 'float16': did you mean 'float32'?\nchoices: 'float32'");
        });
    }

    @Test
    void editingADefaultInTheSchemaChangesWhatALeftOutValueMeans(@TempDir Path dir) {
        String bare = """
                {"name": "d", "model": {"type": "mlp"}, "data": {"train": {"type": "synthetic"}}, "stages": [{"epochs": 1}]}
                """;
        ObjectNode schema = (ObjectNode) ConfigSchema.json();
        ((ObjectNode) schema.at("/$defs/stage/properties/batchSize")).put("default", 48);
        ((ObjectNode) schema.at("/$defs/optimizer/properties/type")).put("default", "sgd");
        ((ObjectNode) schema.at("/$defs/model/oneOf/0/properties/hidden"))
                .putArray("default")
                .add(7);
        ((ObjectNode) schema.at("/$defs/stage/properties/schedule"))
                .putObject("default")
                .put("type", "step")
                .put("everyEpochs", 2);
        ((ObjectNode) schema.at("/properties/logging/properties/csv")).put("default", false);
        ((ObjectNode) schema.at("/properties/parallel/properties/prefetch")).put("default", 9);
        ((ObjectNode) schema.at("/properties/seed")).put("default", 7);

        RunConfig config = ConfigParser.parse(bare, dir, SchemaNode.of(schema)).orThrow();

        StageConfig stage = config.stages().get(0);
        assertThat(stage.batchSize()).isEqualTo(48);
        assertThat(stage.optimizer().type()).isEqualTo("sgd");
        assertThat(stage.schedule()).isEqualTo(new ScheduleConfig.Step(2, 0.1));
        assertThat(((ModelConfig.Mlp) config.model()).hidden()).containsExactly(7);
        assertThat(config.logging().csv()).isFalse();
        assertThat(config.parallel().prefetch()).isEqualTo(9);
        assertThat(config.seed()).isEqualTo(7);
    }
}
