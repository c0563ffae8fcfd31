package org.traindeck.engine.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.traindeck.engine.model.GraphFixture.assertLearns;
import static org.traindeck.engine.model.GraphFixture.config;
import static org.traindeck.engine.model.GraphFixture.row;
import static org.traindeck.engine.model.GraphFixture.shapeOf;
import static org.traindeck.engine.model.GraphFixture.train;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.ScaleVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigSchema;
import org.traindeck.engine.model.graph.Built;
import org.traindeck.engine.model.graph.LayerKind;
import org.traindeck.engine.model.graph.NodeOptions;

/**
 * The house rule: a new layer type is one schema entry plus one small class. Here a test's own "scale" type, nowhere
 * in the engine, is read, checked, summarised and trained once both exist, and refused where either is missing.
 */
class OneSchemaEntryPlusOneClassTest {

    @TempDir
    Path dir;

    private static final String LAYERS = """
            {"type": "conv2d", "filters": 4, "kernel": 3, "activation": "relu"},
            {"name": "half", "type": "scale", "factor": 0.5},
            {"type": "globalPool"}""";

    /** The one class: multiplies its input by a constant. */
    static final class Scale implements LayerKind {
        @Override
        public String type() {
            return "scale";
        }

        @Override
        public Built build(NodeOptions o, List<InputType> inputs) {
            return Built.vertex(new ScaleVertex(o.number("factor")));
        }
    }

    /** The one schema entry, written as every entry of $defs.layer is. */
    private static ObjectNode schemaWithScale() {
        ObjectNode schema = (ObjectNode) ConfigSchema.json();
        ObjectNode entry = ((ArrayNode) schema.at("/$defs/layer/oneOf")).addObject();
        entry.put("description", "Multiplies its input by a constant.").put("additionalProperties", false);
        ObjectNode props = entry.putObject("properties");
        props.putObject("type").put("const", "scale");
        props.putObject("name").put("$ref", "#/$defs/nodeName");
        props.putObject("inputs").put("$ref", "#/$defs/nodeInputs");
        props.putObject("factor")
                .put("type", "number")
                .put("minimum", -100)
                .put("maximum", 100)
                .put("default", 1);
        return schema;
    }

    @Test
    void aTypeWithItsSchemaEntryAndItsClassBuildsShowsAndTrains() {
        ValidationResult parsed = ConfigParser.parse(config(LAYERS), dir, schemaWithScale());
        ModelCheck.Checked c =
                ModelCheck.checkWithSummary(parsed, LayerKinds.standard().with(new Scale()));

        assertThat(c.result().errors()).isEmpty();
        assertThat(row(c.summary(), "half").type()).isEqualTo("scale");
        assertThat(shapeOf(c.summary(), "half")).isEqualTo("[8, 8, 4]");
        ComputationGraphConfiguration conf = ModelCompiler.configuration(
                parsed.config().model(),
                GraphFixture.IMAGES,
                1,
                LayerKinds.standard().with(new Scale()));
        assertLearns(train(conf, GraphFixture.IMAGES, 6));
    }

    @Test
    void theSchemaEntryBoundsItsOptions() {
        ValidationResult parsed = ConfigParser.parse(config(LAYERS.replace("0.5", "500")), dir, schemaWithScale());
        assertThat(parsed.errors()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.layers[1].factor");
            assertThat(p.message()).isEqualTo("must be ≥ -100 and ≤ 100, not 500");
        });
    }

    @Test
    void withoutTheSchemaEntryTheTypeIsUnknown() {
        ValidationResult parsed = ConfigParser.parse(config(LAYERS), dir);
        assertThat(parsed.errors()).first().satisfies(p -> {
            assertThat(p.path()).isEqualTo("model.layers[1].type");
            assertThat(p.message()).contains("'scale'");
        });
    }

    @Test
    void withoutTheClassTheCheckSaysNoLayerClassBuildsIt() {
        ValidationResult checked = ModelCheck.checkWithSummary(
                        ConfigParser.parse(config(LAYERS), dir, schemaWithScale()))
                .result();
        assertThat(checked.errors())
                .first()
                .satisfies(p -> assertThat(p.message())
                        .contains("the schema allows layer type scale but no layer class builds it"));
    }
}
