package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;

/** The committed JSON Schema documents the same format the engine accepts. */
class JsonSchemaAgreementTest {

    private static JsonSchema schema;
    private static final ObjectMapper JSON = new ObjectMapper();

    @BeforeAll
    static void loadSchema() throws IOException {
        try (InputStream in = Files.newInputStream(TestPaths.repoRoot().resolve("docs/run-config.schema.json"))) {
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
                    .getSchema(in);
        }
    }

    private static Set<ValidationMessage> check(Path file) throws IOException {
        return schema.validate(JSON.readTree(file.toFile()));
    }

    @Test
    void everySampleConfigAndItsFullyWrittenFormAreValid() throws IOException {
        try (Stream<Path> files = Files.list(TestPaths.sampleConfigs())) {
            for (Path file : files.filter(p -> p.toString().endsWith(".json")).toList()) {
                assertThat(check(file)).as(file.toString()).isEmpty();
                ValidationResult parsed = ConfigParser.load(file);
                if (parsed.isValid()) {
                    JsonNode written = JSON.readTree(ConfigWriter.toJson(parsed.config()));
                    assertThat(schema.validate(written)).as("written " + file).isEmpty();
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "wrong-type-epochs.json",
                "unknown-key.json",
                "out-of-range.json",
                "not-an-object.json",
                "bad-devices.json",
                "many-errors.json"
            })
    void structurallyBadConfigsAreInvalidForTheSchemaToo(String file) throws IOException {
        assertThat(check(TestPaths.badConfigs().resolve(file))).isNotEmpty();
    }
}
