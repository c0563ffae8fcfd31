package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;

class SamplesConfigTest {

    private static final String BASE = """
            {"name": "s", "model": {"type": "mlp", "hidden": [4]},
             "data": {"train": {"type": "synthetic", "samples": 40, "features": 3}}, "stages": [{"epochs": 3}]%s}
            """;

    @Test
    void sampleListIsOffUnlessTheSectionIsThere(@TempDir Path dir) {
        SamplesConfig absent =
                ConfigParser.parse(BASE.formatted(""), dir).orThrow().logging().samples();
        SamplesConfig empty = ConfigParser.parse(BASE.formatted(", \"logging\": {\"samples\": {}}"), dir)
                .orThrow()
                .logging()
                .samples();

        assertThat(absent.on()).isFalse();
        assertThat(empty).isEqualTo(new SamplesConfig(8, 1));
        assertThat(empty.dueAfter(0, 3)).isTrue();
        assertThat(new SamplesConfig(8, 2).dueAfter(0, 3)).isFalse();
        // a stage's last epoch always shows its predictions
        assertThat(new SamplesConfig(8, 2).dueAfter(2, 3)).isTrue();
    }

    @Test
    void theWrittenConfigReadsBackTheSame(@TempDir Path dir) {
        for (String logging : new String[] {"", ", \"logging\": {\"samples\": {\"count\": 3, \"everyEpochs\": 2}}"}) {
            RunConfig config = ConfigParser.parse(BASE.formatted(logging), dir).orThrow();
            RunConfig again =
                    ConfigParser.parse(ConfigWriter.toJson(config), dir).orThrow();
            assertThat(again.logging()).isEqualTo(config.logging());
        }
    }

    @Test
    void aCountOutOfRangeIsRefusedWhereItIs(@TempDir Path dir) {
        ValidationResult r = ConfigParser.parse(BASE.formatted(", \"logging\": {\"samples\": {\"count\": 1000}}"), dir);
        assertThat(r.isValid()).isFalse();
        assertThat(r.problems()).anySatisfy(p -> assertThat(p.path()).isEqualTo("logging.samples.count"));
    }
}
