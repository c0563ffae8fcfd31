package org.traindeck.engine.use.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.model.ModelCompiler;

/** Every sample config's network has a name for each of its parameters: every value is exported, once. */
class EverySampleExportsTest {

    @ParameterizedTest
    @ValueSource(
            strings = {
                "digits-graph.json",
                "digits-lenet-two-stages.json",
                "digits-mlp.json",
                "fashion-mnist-lenet.json",
                "fashion-vit.json",
                "shapes-unet.json",
                "synthetic-quick.json",
                "text-gpt.json",
                "volumes-autoencoder.json"
            })
    void everyParameterIsExportedOnce(String sample) throws Exception {
        assumeTrue(
                !sample.contains("fashion") || Files.isDirectory(Path.of("/usr/share/datasets/fashion-mnist")),
                () -> sample
                        + " skipped: its data comes from the Debian package dataset-fashion-mnist, not installed here");
        Path file = TestPaths.sampleConfigs().resolve(sample);
        RunConfig run =
                ConfigParser.parse(Files.readString(file), file.getParent()).orThrow();
        ComputationGraph net;
        try (DataLoader.Loaded data = DataLoader.load(run, run.data(), "data")) {
            net = ModelCompiler.build(run.model(), ModelCompiler.inputOf(run.model(), data.train()), run.seed());
        }
        ModelTensors tensors = ModelTensors.of(net, NamingTable.standard(), null);

        assertThat(tensors.tensors().stream().mapToLong(t -> t.values().length).sum())
                .isEqualTo(net.numParams());
        double exported = tensors.tensors().stream()
                .mapToDouble(t -> {
                    double s = 0;
                    for (float v : t.values()) {
                        s += v;
                    }
                    return s;
                })
                .sum();
        // BatchNorm's variance is exported as itself, not DL4J's log10 of the deviation: compare where no batch norm is
        if (tensors.tensors().stream().noneMatch(t -> t.name().endsWith(".running_var"))) {
            assertThat(exported).isCloseTo(net.params().sumNumber().doubleValue(), within(1e-2));
        }
        JsonNode nodes = tensors.graph().get("nodes");
        assertThat(nodes.size()).isPositive();
    }
}
