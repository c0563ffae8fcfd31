package org.traindeck.engine.model.fit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.api.devices.HostInfo;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.model.ModelCheck;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;

/** The training-memory estimate and the verdict it gives against a device's memory. */
class FitCheckTest {

    private static final HostInfo HOST = new HostInfo("Test CPU", 2, 2, 16384, 8192);

    private static ModelCheck.Checked compiled(Path dir, String layers, int batch) throws IOException {
        Path config = Files.writeString(dir.resolve("m.json"), """
                {"name": "m", "model": {"type": "graph", "layers": [%s]},
                 "data": {"train": {"type": "synthetic", "samples": 16, "imageShape": [64, 64, 3], "numClasses": 4}},
                 "stages": [{"epochs": 1, "batchSize": %d, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """.formatted(layers, batch));
        ModelCheck.Checked checked = ModelCheck.checkWithSummary(ConfigParser.load(config));
        assertThat(checked.result().errors()).isEmpty();
        return checked;
    }

    private static FitEstimate.Model model(ModelCheck.Checked checked) {
        StageConfig stage = checked.result().config().stages().get(0);
        return FitEstimate.model(
                checked.conf(), checked.input(), checked.summary().parameters(), stage);
    }

    @Test
    void theEstimateGrowsLinearlyWithTheBatch(@TempDir Path dir) throws IOException {
        ModelCheck.Checked checked = compiled(dir, """
                {"name": "c", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"},
                {"name": "fc", "type": "dense", "units": 32, "activation": "relu"}""", 16);
        FitEstimate.Model model = model(checked);

        FitEstimate at8 = model.at(8);
        assertThat(at8.fromReport()).isTrue();
        assertThat(at8.activations()).isPositive();
        assertThat(model.at(16).activations()).isEqualTo(2 * at8.activations());
        assertThat(model.at(24).total() - model.at(16).total())
                .isEqualTo(model.at(16).total() - at8.total());
        long params = checked.summary().parameters() * 4;
        assertThat(at8.weights()).isEqualTo(params);
        assertThat(at8.gradients()).isEqualTo(params);
        assertThat(at8.optimizerState()).as("Adam keeps two moments").isEqualTo(2 * params);
    }

    /**
     * A block's cross-attention keeps keys, values and their gradients [S, W] and its probabilities [heads, T, S] per
     * example: 64 context tokens rather than 16 (T = 64, W = 16, 2 heads) add at least 4 · (5 · 48 · 16 + 2 · 64 · 48)
     * bytes, in the block and in a crossAttention node each, whichever way the estimate counts.
     */
    @Test
    void crossAttentionBuffersGrowWithTheContext(@TempDir Path dir) throws IOException {
        String layers = """
                {"name": "tokens", "type": "patches", "size": 8, "units": 16%s},
                {"name": "ctx", "type": "patches", "inputs": "input", "size": %d, "units": 16},
                {"name": "blk", "type": "%s", "inputs": "tokens", "heads": 2, "context": "ctx"},
                {"type": "globalPool"}""";
        long atLeast = 4L * (5 * 48 * 16 + 2 * 64 * 48);
        // DL4J's memory report, and the count of the activations when a SameDiff layer has none
        for (String kernel : List.of("", ", \"kernel\": \"dl4j\"")) {
            for (String type : List.of("transformerBlock", "crossAttention")) {
                long shortContext = model(compiled(dir, layers.formatted(kernel, 16, type), 8))
                        .activationBytesPerExample();
                long longContext = model(compiled(dir, layers.formatted(kernel, 8, type), 8))
                        .activationBytesPerExample();
                assertThat(longContext - shortContext).as(type + kernel).isGreaterThanOrEqualTo(atLeast);
            }
        }
    }

    /**
     * patches3d and unpatch3d keep their kernel's buffers ({@code VolumePatchBuffers}) between the passes, a set per
     * node; with recompute the nodes of a thread share one set. Two patches3d nodes (3×16³ volumes, 4³ patches: 64
     * tokens of 16) hold 3·12288 + 12288 = 49,152 floats per example each, the unpatch3d 3·12288 = 36,864: recompute
     * on all three keeps only the largest set, 86,016 floats (344,064 bytes) fewer.
     */
    @Test
    void volumePatchBuffersCountPerNodeAndRecomputeSharesOneSet(@TempDir Path dir) throws IOException {
        String layers = """
                {"name": "vol", "type": "reshape", "shape": [3, 16, 16, 16]},
                {"name": "a", "type": "patches3d", "inputs": "vol", "size": 4, "units": 16%1$s},
                {"name": "b", "type": "patches3d", "inputs": "vol", "size": 4, "units": 16%1$s},
                {"name": "tokens", "type": "add", "inputs": ["a", "b"]},
                {"name": "volume", "type": "unpatch3d", "size": 4, "channels": 3%1$s},
                {"type": "globalPool"}""";
        FitEstimate.Model kept = model(compiled(dir, layers.formatted(""), 8));
        FitEstimate.Model recomputing = model(compiled(dir, layers.formatted(", \"recompute\": true"), 8));

        assertThat(kept.fromReport()).isFalse();
        assertThat(kept.activationBytesPerExample()).isGreaterThan(4L * (2 * 49_152 + 36_864));
        assertThat(kept.activationBytesPerExample() - recomputing.activationBytesPerExample())
                .isEqualTo(4L * (49_152 + 36_864));
    }

    /**
     * Each transformerBlock without recompute keeps its kernel's buffers between the passes. In a model DL4J's report
     * could see whole (the 64×64×3 images reshaped into a sequence straight into the blocks, no SameDiff layer) those
     * buffers were the blocks' working memory, of which the report counts only the largest: four blocks came out
     * hardly above one.
     */
    @Test
    void everyBlockKeepsItsOwnBuffers(@TempDir Path dir) throws IOException {
        String layers = """
                {"type": "reshape", "shape": [64, 192]},
                %s
                {"type": "globalPool"}""";
        String block = "{\"type\": \"transformerBlock\", \"heads\": 4},";
        FitEstimate.Model one = model(compiled(dir, layers.formatted(block), 8));
        FitEstimate.Model four = model(compiled(dir, layers.formatted(block.repeat(4)), 8));

        ModelCheck.Checked checked = compiled(dir, layers.formatted(block), 8);
        TransformerBlock b = (TransformerBlock) ((LayerVertex) checked.conf().getVertices().values().stream()
                        .filter(v ->
                                v instanceof LayerVertex l && l.getLayerConf().getLayer() instanceof TransformerBlock)
                        .findFirst()
                        .orElseThrow())
                .getLayerConf()
                .getLayer();
        assertThat(four.activationBytesPerExample() - one.activationBytesPerExample())
                .isGreaterThanOrEqualTo(3 * 4 * b.bufferFloatsPerExample(64 * 192 / b.getWidth()));
    }

    @Test
    void aBatchTooLargeForASmallGpuIsRefusedWithABatchThatFits(@TempDir Path dir) throws IOException {
        ModelCheck.Checked checked = compiled(dir, """
                {"name": "c", "type": "conv2d", "filters": 32, "kernel": 3, "activation": "relu"},
                {"name": "fc", "type": "dense", "units": 16, "activation": "relu"}""", 256);
        RunConfig config = checked.result().config();
        FitEstimate.Model model = model(checked);
        // a 1 GiB card with 900 MiB taken: about 100 MiB free
        GpuInfo small = new GpuInfo(0, "GPU-x", "Tiny", "0:1", 1024L, 900L, null, null, null);
        List<DeviceMemory> devices = DeviceMemory.of(DeviceSelection.gpus(List.of(0)), HOST, List.of(small), 0);
        assertThat(devices).containsExactly(new DeviceMemory("gpu0", 124L << 20, 1));

        StageFits fits = StageFits.of(config, checked, devices);

        assertThat(fits.lines())
                .singleElement()
                .asString()
                .startsWith("training memory per device: ")
                .contains("gpu0: ", "does NOT fit");
        ConfigProblem p = fits.problems().get(0);
        assertThat(p.path()).isEqualTo("stages[0].batchSize");
        Matcher m = Pattern.compile("use batchSize (\\d+) with accumulationSteps (\\d+)")
                .matcher(p.message());
        assertThat(m.find()).as(p.message()).isTrue();
        int batch = Integer.parseInt(m.group(1));
        int steps = Integer.parseInt(m.group(2));
        assertThat(batch * steps).as("the same global batch").isEqualTo(256);
        assertThat(model.at(batch).total()).isLessThanOrEqualTo(124L << 20);
        assertThat(model.at(2 * batch).total())
                .as("the largest power-of-two divisor that fits")
                .isGreaterThan(124L << 20);
    }

    @Test
    void aModelTooLargeEvenAtBatchOneSaysSo(@TempDir Path dir) throws IOException {
        ModelCheck.Checked checked = compiled(dir, """
                {"name": "fc", "type": "dense", "units": 4096, "activation": "relu"}""", 32);
        GpuInfo small = new GpuInfo(0, "GPU-x", "Tiny", "0:1", 1024L, 900L, null, null, null);
        List<DeviceMemory> devices = DeviceMemory.of(DeviceSelection.ALL, HOST, List.of(small), 0);

        StageFits fits = StageFits.of(checked.result().config(), checked, devices);

        assertThat(fits.problems())
                .singleElement()
                .satisfies(
                        p -> assertThat(p.message()).contains("even batch 1 needs", "the model is too large for gpu0"));
    }

    @Test
    void cpuWorkersAreReplicasInOneProcessAndTheOffHeapLimitCaps(@TempDir Path dir) throws IOException {
        List<DeviceMemory> devices = DeviceMemory.of(DeviceSelection.cpuWorkers(3), HOST, List.of(), 1L << 30);

        assertThat(devices)
                .containsExactly(
                        new DeviceMemory("cpu", 1L << 30, 3, "ND4J's off-heap limit, org.bytedeco.javacpp.maxbytes"));
        assertThat(DeviceMemory.of(DeviceSelection.CPU, HOST, List.of(), 0))
                .containsExactly(new DeviceMemory("cpu", 8192L << 20, 1));
    }
}
