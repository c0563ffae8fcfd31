package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;

/** {@code data.test}: a source like data.train, written back as it was read, and checked against the training data's task. */
class DataTestSectionTest {

    private static final String CONFIG = """
            {"name": "t", "model": {"type": "mlp"},
             "data": {"train": {"type": "synthetic", "samples": 100}, "test": %s},
             "stages": [{"epochs": 1}]}
            """;

    @Test
    void aTestSourceIsReadAndWrittenBack(@TempDir Path dir) {
        RunConfig c = ConfigParser.parse(CONFIG.formatted("{\"type\": \"synthetic\", \"samples\": 50}"), dir)
                .orThrow();

        assertThat(c.data().test()).isInstanceOf(SyntheticSource.class);
        assertThat(((SyntheticSource) c.data().test()).samples()).isEqualTo(50);
        assertThat(ConfigParser.parse(ConfigWriter.toJson(c), dir).orThrow()).isEqualTo(c);
        assertThat(ConfigParser.parse(CONFIG.formatted("null").replace(", \"test\": null", ""), dir)
                        .orThrow()
                        .data()
                        .test())
                .isNull();
    }

    @Test
    void aTestSourceOfAnotherTaskOrAMissingFileIsRefusedWhereItIs(@TempDir Path dir) {
        ValidationResult task =
                ConfigParser.parse(CONFIG.formatted("{\"type\": \"synthetic\", \"task\": \"regression\"}"), dir);
        assertThat(task.errors())
                .anySatisfy(
                        p -> assertThat(p.toString()).startsWith("data.test").contains("regression"));

        ValidationResult missing =
                ConfigParser.parse(CONFIG.formatted("{\"type\": \"csv\", \"path\": \"nope.csv\"}"), dir);
        assertThat(missing.errors())
                .anySatisfy(p ->
                        assertThat(p.toString()).startsWith("data.test.path").contains("no such file"));
    }
}
