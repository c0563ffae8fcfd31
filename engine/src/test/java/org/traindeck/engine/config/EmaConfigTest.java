package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;

/** A stage's "ema": read with the schema's defaults, written back, and every bad value refused where it is. */
class EmaConfigTest {

    private static final String CONFIG = """
            {"name": "averaged", "devices": "%s",
             "model": {"type": "mlp", "hidden": [8]},
             "data": {"train": {"type": "synthetic", "samples": 64, "features": 4, "numClasses": 2}, "validationSplit": 0.25},
             "parallel": {"mode": "%s"},
             "checkpoint": {"monitor": "%s"},
             "stages": [{"epochs": 1, "optimizer": {"type": "adam", "learningRate": 0.01}%s}]}
            """;

    private static ValidationResult parse(String ema, Path dir) {
        return parse("cpu", "sync", "val/loss", ema, dir);
    }

    private static ValidationResult parse(String devices, String mode, String monitor, String ema, Path dir) {
        return ConfigParser.parse(
                CONFIG.formatted(devices, mode, monitor, ema == null ? "" : ", \"ema\": " + ema), dir);
    }

    @Test
    void absentMeansNoAverageAndAnEmptyObjectTakesTheSchemasDefaults(@TempDir Path dir) {
        assertThat(parse(null, dir).orThrow().stages().get(0).ema()).isNull();
        assertThat(parse("{}", dir).orThrow().stages().get(0).ema()).isEqualTo(new EmaConfig(0.999, 0, 1));
        assertThat(parse("{\"decay\": 0, \"startStep\": 5, \"everySteps\": 3}", dir)
                        .orThrow()
                        .stages()
                        .get(0)
                        .ema())
                .isEqualTo(new EmaConfig(0, 5, 3));
    }

    @Test
    void itIsWrittenAndReadBackUnchanged(@TempDir Path dir) {
        RunConfig config = parse("{\"decay\": 0.99, \"startStep\": 10, \"everySteps\": 2}", dir)
                .orThrow();
        String json = ConfigWriter.toJson(config);
        assertThat(json).contains("\"ema\"");
        assertThat(ConfigParser.parse(json, dir).orThrow().stages()).isEqualTo(config.stages());
        // a stage without one writes none
        assertThat(ConfigWriter.toJson(parse(null, dir).orThrow())).doesNotContain("\"ema\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "{\"decay\": 1}; stages[0].ema.decay; < 1",
                "{\"decay\": 1.5}; stages[0].ema.decay; < 1",
                "{\"decay\": -0.1}; stages[0].ema.decay; ≥ 0",
                "{\"startStep\": -1}; stages[0].ema.startStep; ",
                "{\"everySteps\": 0}; stages[0].ema.everySteps; ",
                "{\"decay\": \"0.9\"}; stages[0].ema.decay; number",
                "{\"delay\": 0.9}; stages[0].ema.delay; ",
                "0.999; stages[0].ema; object",
            })
    void badValuesAreRefusedWhereTheyAre(String ema, String path, String says, @TempDir Path dir) {
        ValidationResult result = parse(ema, dir);
        assertThat(result.errors()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo(path);
            assertThat(e.line()).isPositive();
            if (says != null) {
                assertThat(e.message()).contains(says);
            }
        });
    }

    @Test
    void theLargestDecayBelowOneIsAccepted(@TempDir Path dir) {
        assertThat(parse("{\"decay\": 0.999999}", dir).errors()).isEmpty();
    }

    @Test
    void parameterAveragingHasNoOneSetOfWeightsToAverage(@TempDir Path dir) {
        assertThat(parse("cpu:2", "averaging", "val/loss", "{}", dir).errors())
                .singleElement()
                .satisfies(e -> assertThat(e.path()).isEqualTo("stages[0].ema"));
        assertThat(parse("cpu:2", "sync", "val/loss", "{}", dir).errors()).isEmpty();
    }

    @Test
    void theMonitorMayNameTheAverageOnlyWhenAStageKeepsOne(@TempDir Path dir) {
        RunConfig config = parse("cpu", "sync", "val_ema/accuracy", "{}", dir).orThrow();
        assertThat(config.checkpoint().mode()).isEqualTo("max");
        assertThat(parse("cpu", "sync", "val_ema/loss", "{}", dir)
                        .orThrow()
                        .checkpoint()
                        .mode())
                .isEqualTo("min");
        assertThat(parse("cpu", "sync", "val_ema/loss", null, dir).errors())
                .singleElement()
                .satisfies(e -> {
                    assertThat(e.path()).isEqualTo("checkpoint.monitor");
                    assertThat(e.message()).contains("\"ema\"");
                });
    }
}
