package org.traindeck.engine.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.InvalidConfigException;

/** docs/sweep.schema.json, which editors read, accepts and refuses the sweep files the parser does. */
class SweepSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonSchema schema() throws Exception {
        try (InputStream in = Files.newInputStream(TestPaths.repoRoot().resolve("docs/sweep.schema.json"))) {
            return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(in);
        }
    }

    @Test
    void theSampleSweepIsValidBothWaysAndExpandsToItsThreeTrials() throws Exception {
        Path sample = TestPaths.repoRoot().resolve("sample-configs/sweeps/digits-mlp-lr-sweep.json");
        assertThat(schema().validate(JSON.readTree(sample.toFile()))).isEmpty();
        SweepSpec spec = SweepParser.load(sample);
        assertThat(SweepTrials.expand(spec))
                .extracting(SweepTrials.Trial::describe)
                .containsExactly(
                        "stages[0].optimizer.learningRate=0.0005",
                        "stages[0].optimizer.learningRate=0.002",
                        "stages[0].optimizer.learningRate=0.01");
    }

    @Test
    void badSweepsAreRefusedByBoth(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("base.json"), "{}");
        List<String> bad = List.of(
                "{\"name\": \"s\", \"base\": \"base.json\", \"parameters\": {}, \"metric\": \"val/loss\"}",
                "{\"name\": \"s\", \"base\": \"base.json\", \"parameters\": {\"seed\": [1]}, \"metric\": \"val/loss\", \"trails\": 2}",
                "{\"name\": \"s\", \"base\": \"base.json\", \"parameters\": {\"seed\": [1]}, \"metric\": \"val/loss\", \"goal\": \"up\"}",
                "{\"name\": \"s\", \"base\": \"base.json\", \"method\": \"random\", \"trials\": 2,"
                        + " \"parameters\": {\"model.dropout\": {\"min\": 0.1}}, \"metric\": \"val/loss\"}",
                "{\"name\": \"s p\", \"base\": \"base.json\", \"parameters\": {\"seed\": [1]}, \"metric\": \"val/loss\"}",
                "{\"name\": \"s\", \"base\": \"base.json\", \"parameters\": {\"seed\": [1]}, \"metric\": \"val/loss\", \"concurrent\": 0}");
        for (String text : bad) {
            Path file = dir.resolve("sweep.json");
            Files.writeString(file, text);
            assertThat(schema().validate(JSON.readTree(text)))
                    .as("schema on " + text)
                    .isNotEmpty();
            assertThatThrownBy(() -> SweepParser.load(file))
                    .as("parser on " + text)
                    .isInstanceOf(InvalidConfigException.class);
        }
    }
}
