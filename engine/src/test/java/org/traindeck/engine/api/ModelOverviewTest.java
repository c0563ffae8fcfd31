package org.traindeck.engine.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.devices.HostProbe;
import org.traindeck.engine.devices.NvidiaSmi;
import org.traindeck.engine.devices.TelemetryMonitor;

/** What the app shows beside a config: the model's table, its fit check, and each problem on its node. */
class ModelOverviewTest {

    private static final String GRAPH = """
            {"name": "g", "outputDir": "runs", "model": {"type": "graph", "layers": [
              {"name": "conv1", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"},
              {"name": "pool", "type": "maxPool2d", "size": 2},
              {"name": "fc", "type": "dense", "units": %s, "activation": "relu"}]},
             "data": {"train": {"type": "csv", "path": "digits.csv", "numClasses": 2, "imageShape": [4, 4, 1]}},
             "stages": [{"epochs": 1, "batchSize": %d}]}
            """;

    private static Path digits(Path dir) throws IOException {
        StringBuilder csv = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            for (int v = 0; v < 16; v++) {
                csv.append((i * 7 + v) % 5).append(',');
            }
            csv.append(i % 2).append('\n');
        }
        return Files.writeString(dir.resolve("digits.csv"), csv);
    }

    private static DeviceDiscovery hostWith(long availableMiB) {
        return new DeviceDiscovery(new NvidiaSmi("", Duration.ofSeconds(1)), new HostProbe() {
            @Override
            public HostInfo host() {
                return new HostInfo("Test CPU", 2, 2, 65536, availableMiB);
            }

            @Override
            public List<GraphicsCard> graphicsCards() {
                return List.of();
            }

            @Override
            public double cpuLoad() {
                return 0;
            }
        });
    }

    @Test
    void aSequenceIsShownAsTheSummaryWritesItStepsThenFeatures(@TempDir Path dir) throws IOException {
        digits(dir);
        ModelOverview o = new ModelOverviews(hostWith(64 * 1024)).of("""
                {"name": "s", "outputDir": "runs", "model": {"type": "graph", "layers": [
                  {"name": "steps", "type": "reshape", "shape": [2, 8]},
                  {"name": "rnn", "type": "lstm", "units": 3},
                  {"name": "last", "type": "lstm", "units": 5, "returnSequences": false}]},
                 "data": {"train": {"type": "csv", "path": "digits.csv", "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 4}]}
                """, dir);

        assertThat(o.ok()).as(o.toString()).isTrue();
        // [T, features], as images are [H, W, C]: the reshape's "shape" alone is written features first
        assertThat(o.nodes())
                .extracting(ModelOverview.Node::outputShape)
                .containsExactly("[16]", "[8, 2]", "[8, 3]", "[5]", "[2]");
    }

    @Test
    void aGraphShowsEachNodeWithItsShapeAndParametersAndTheFitLine(@TempDir Path dir) throws IOException {
        digits(dir);
        ModelOverview o = new ModelOverviews(hostWith(64 * 1024)).of(GRAPH.formatted("16", 8), dir);

        assertThat(o.ok()).as(o.toString()).isTrue();
        assertThat(o.nodes())
                .extracting(ModelOverview.Node::name)
                .containsExactly("input", "conv1", "pool", "fc", "output");
        assertThat(o.nodes().get(1))
                .isEqualTo(new ModelOverview.Node("conv1", "conv2d", List.of("input"), "[4, 4, 8]", 80L, null));
        assertThat(o.nodes().get(2).outputShape()).isEqualTo("[2, 2, 8]");
        assertThat(o.parameters())
                .isEqualTo(o.nodes().stream()
                        .mapToLong(ModelOverview.Node::parameters)
                        .sum())
                .isPositive();
        assertThat(o.fit())
                .singleElement()
                .asString()
                .startsWith("training memory per device: ")
                .contains("cpu: ", "fits");
    }

    @Test
    void aShapeErrorIsOnItsNodeAndEditsOfTheModelDoNotReadTheDataAgain(@TempDir Path dir) throws IOException {
        digits(dir);
        ModelOverviews overviews = new ModelOverviews(hostWith(64 * 1024));
        overviews.of(GRAPH.formatted("16", 8), dir);
        String broken = GRAPH.formatted("16", 8).replace("\"size\": 2}", "\"size\": 8}");

        ModelOverview o = overviews.of(broken, dir);
        overviews.of(GRAPH.formatted("32", 8), dir);

        assertThat(o.compiled()).isFalse();
        assertThat(o.ok()).isFalse();
        assertThat(o.nodes()).extracting(ModelOverview.Node::name).containsExactly("conv1", "pool", "fc");
        assertThat(o.nodes().get(1).problem()).contains("layers[1] 'pool'", "(line 3, column");
        assertThat(o.nodes().get(0).problem()).isNull();
        assertThat(o.problems()).isEmpty();
        assertThat(overviews.dataReads())
                .as("three summaries of one data config")
                .isEqualTo(1);

        Files.writeString(
                dir.resolve("digits.csv"),
                Files.readString(dir.resolve("digits.csv")) + "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0\n");
        overviews.of(GRAPH.formatted("32", 8), dir);
        assertThat(overviews.dataReads()).as("the data file changed").isEqualTo(2);
    }

    @Test
    void aConfigThatDoesNotValidateStillListsItsNodesWithTheProblemOnOne(@TempDir Path dir) throws IOException {
        digits(dir);
        String unknown = GRAPH.formatted("16", 8).replace("\"maxPool2d\"", "\"maxPool9d\"");

        ModelOverview o = new ModelOverviews(hostWith(64 * 1024)).of(unknown, dir);

        assertThat(o.nodes()).extracting(ModelOverview.Node::name).containsExactly("conv1", "pool", "fc");
        assertThat(o.nodes().get(1).problem()).contains("maxPool9d");
        assertThat(o.nodes().get(2).inputs()).containsExactly("pool");
    }

    @Test
    void aStageThatDoesNotFitIsRefusedBeforeAnythingIsWritten(@TempDir Path dir) throws IOException {
        digits(dir);
        Engine engine = Engine.withDevices(hostWith(16), TelemetryMonitor.Settings.DEFAULT);
        String huge = GRAPH.formatted("4096", 4096);

        ModelOverview o = engine.summarize(huge, dir);
        assertThat(o.compiled()).as(o.toString()).isTrue();
        assertThat(o.fit()).singleElement().asString().contains("does NOT fit");
        assertThat(o.problems()).singleElement().satisfies(p -> {
            assertThat(p.path()).isEqualTo("stages[0].batchSize");
            assertThat(p.message()).containsPattern("use batchSize \\d+ with accumulationSteps \\d+");
            assertThat(p.line()).isPositive();
        });

        assertThatThrownBy(() -> engine.openRun(Configs.parse(huge, dir).orThrow()))
                .isInstanceOfSatisfying(
                        InvalidConfigException.class,
                        e -> assertThat(e.problems())
                                .extracting(ConfigProblem::path)
                                .containsExactly("stages[0].batchSize"))
                .hasMessageContaining("use batchSize ");
        assertThat(dir.resolve("runs")).doesNotExist();
    }
}
