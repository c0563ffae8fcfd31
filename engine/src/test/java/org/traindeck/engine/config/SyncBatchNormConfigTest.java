package org.traindeck.engine.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.config.read.ConfigWriter;
import org.traindeck.engine.model.ModelCheck;
import org.traindeck.engine.model.ModelSummary;

/**
 * "parallel": {"syncBatchNorm"} and a batchNorm node's "sync": read, written back, resolved node by node (the summary
 * marks what is synchronized), and refused on a cluster where they are written.
 */
class SyncBatchNormConfigTest {

    private static final String CONFIG = """
            {"name": "bn", "devices": "cpu:2",
             "model": {"type": "graph", "layers": [
                {"name": "c0", "type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "b0", "type": "batchNorm"%s},
                {"name": "c1", "type": "conv2d", "filters": 4, "kernel": 3},
                {"name": "b1", "type": "batchNorm"},
                {"name": "g", "type": "globalPool"}]},
             "data": {"train": {"type": "synthetic", "samples": 64, "numClasses": 2, "imageShape": [4, 4, 1]},
                      "validationSplit": 0.25},
             "parallel": %s,
             "stages": [{"epochs": 1}]}
            """;

    private static ValidationResult parse(String nodeSync, String parallel, Path dir) {
        return ConfigParser.parse(CONFIG.formatted(nodeSync == null ? "" : ", \"sync\": " + nodeSync, parallel), dir);
    }

    private static String typeOf(ModelSummary summary, String node) {
        return summary.rows().stream()
                .filter(r -> r.name().equals(node))
                .findFirst()
                .orElseThrow()
                .type();
    }

    @Test
    void theRunSwitchIsOffByDefaultAndReadAndWrittenBack(@TempDir Path dir) {
        assertThat(parse(null, "{}", dir).orThrow().parallel().syncBatchNorm()).isFalse();
        RunConfig on = parse("false", "{\"syncBatchNorm\": true}", dir).orThrow();
        assertThat(on.parallel().syncBatchNorm()).isTrue();
        RunConfig back = ConfigParser.parse(ConfigWriter.toJson(on), dir).orThrow();
        assertThat(back.parallel()).isEqualTo(on.parallel());
        assertThat(back.model()).isEqualTo(on.model());
    }

    @Test
    void aNodesOwnSyncOverridesTheRunSwitchAndTheSummaryMarksSynchronizedNodes(@TempDir Path dir) {
        ModelSummary all = ModelCheck.checkWithSummary(parse(null, "{\"syncBatchNorm\": true}", dir))
                .summary();
        assertThat(typeOf(all, "b0")).isEqualTo("batchNorm (sync)");
        assertThat(typeOf(all, "b1")).isEqualTo("batchNorm (sync)");

        ModelSummary allButOne = ModelCheck.checkWithSummary(parse("false", "{\"syncBatchNorm\": true}", dir))
                .summary();
        assertThat(typeOf(allButOne, "b0")).isEqualTo("batchNorm");
        assertThat(typeOf(allButOne, "b1")).isEqualTo("batchNorm (sync)");

        ModelSummary onlyOne =
                ModelCheck.checkWithSummary(parse("true", "{}", dir)).summary();
        assertThat(typeOf(onlyOne, "b0")).isEqualTo("batchNorm (sync)");
        assertThat(typeOf(onlyOne, "b1")).isEqualTo("batchNorm");
    }

    @Test
    void aClusterRefusesItWhereItIsWrittenAndSaysWhatToDo(@TempDir Path dir) {
        ValidationResult run = parse(null, "{\"syncBatchNorm\": true, \"cluster\": \"spark://h:7077\"}", dir);
        assertThat(run.errors()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo("parallel.syncBatchNorm");
            assertThat(e.line()).isPositive();
            assertThat(e.message())
                    .contains("not available on a cluster")
                    .contains("this machine's devices")
                    .contains("leave it off");
        });
        ValidationResult node = parse("true", "{\"cluster\": \"spark://h:7077\"}", dir);
        assertThat(node.errors())
                .singleElement()
                .satisfies(e -> assertThat(e.path()).isEqualTo("model.layers[1].sync"));
        assertThat(parse("false", "{\"cluster\": \"spark://h:7077\"}", dir).errors())
                .isEmpty();
    }

    @Test
    void syncIsABooleanWhereItIsWritten(@TempDir Path dir) {
        assertThat(parse("\"yes\"", "{}", dir).errors())
                .singleElement()
                .satisfies(e -> assertThat(e.path()).isEqualTo("model.layers[1].sync"));
        assertThat(parse(null, "{\"syncBatchNorm\": 1}", dir).errors())
                .singleElement()
                .satisfies(e -> assertThat(e.path()).isEqualTo("parallel.syncBatchNorm"));
    }
}
