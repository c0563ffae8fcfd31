package org.traindeck.engine.profile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCompiler;

/**
 * Real short profiles through the engine's API: a branched graph on synthetic images and the text-gpt sample. The table
 * has one row per graph node, every time is positive, the parts add up to the step, and no run folder appears.
 */
class StepProfileRunTest {

    static final String GRAPH = """
            {"name": "profiled", "outputDir": "runs", "seed": 3,
             "model": {"type": "graph", "layers": [
               {"name": "c1", "type": "conv2d", "filters": 4, "kernel": 3, "padding": "same"},
               {"name": "c2", "type": "conv2d", "filters": 4, "kernel": 3, "padding": "same"},
               {"name": "sum", "type": "add", "inputs": ["c1", "c2"]},
               {"name": "pool", "type": "globalPool"},
               {"name": "fc", "type": "dense", "units": 8}]},
             "data": {"train": {"type": "synthetic", "samples": 48, "imageShape": [8, 8, 1], "numClasses": 3}},
             "stages": [{"epochs": 1, "batchSize": 8, "accumulationSteps": 2, "gradientClipping": 1.0}]}
            """;

    @Test
    void aBranchedGraphsStepsAreSplitByNode(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("profiled.json"), GRAPH);
        StepProfile p = Engine.local().profile(Configs.load(file), 3, true);

        assertWellFormed(p, 3);
        assertThat(p.nodes()).hasSize(6);
        assertThat(p.nodes().subList(0, 5))
                .extracting(StepProfile.Node::name)
                .containsExactly("c1", "c2", "sum", "pool", "fc");
        assertThat(p.nodes().get(p.nodes().size() - 1).output()).isTrue();
        assertThat(p.ops()).isNotEmpty().allSatisfy(o -> assertThat(o.totalMs()).isPositive());
        assertThat(p.ops()).extracting(StepProfile.OpTime::name).contains("conv2d");
        assertThat(p.opSteps()).isEqualTo(3);
        assertThat(p.toText())
                .contains("c1 (ConvKernel)", "ND4J's native ops", "optimizer update", "data (batch making)");
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).as("nothing but the config").containsExactly(file);
        }
    }

    @Test
    void theGptSampleIsProfiledNodeByNode() throws IOException {
        Path sample = TestPaths.repoRoot().resolve("sample-configs/text-gpt.json");
        Path runs = TestPaths.repoRoot().resolve("runs");
        List<Path> before = listed(runs);

        StepProfile p = Engine.local().profile(Configs.load(sample), 2, false);

        assertWellFormed(p, 2);
        ModelConfig model = ConfigParser.load(sample).config().model();
        List<String> graphNodes = ModelCompiler.expanded(model).layers().stream()
                .map(LayerSpec::name)
                .toList();
        assertThat(p.nodes()).extracting(StepProfile.Node::name).containsAll(graphNodes);
        assertThat(p.ops()).isEmpty();
        assertThat(listed(runs)).as("no run folder was made").isEqualTo(before);
    }

    private static void assertWellFormed(StepProfile p, int steps) {
        assertThat(p.steps()).isEqualTo(steps);
        assertThat(p.stepMs()).isPositive();
        assertThat(p.dl4jStepMs()).isPositive();
        assertThat(p.nodes()).allSatisfy(n -> {
            assertThat(n.forwardMs()).as("forward of %s", n.name()).isPositive();
            assertThat(n.backwardMs()).as("backward of %s", n.name()).isPositive();
        });
        assertThat(p.updateMs()).isPositive();
        assertThat(p.dataMs()).isPositive();
        assertThat(p.bookkeepingMs()).isPositive();
        assertThat(p.otherMs()).isPositive();
        assertThat(p.partsMs()).isCloseTo(p.stepMs(), within(1e-6 * p.stepMs()));
    }

    private static List<Path> listed(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
