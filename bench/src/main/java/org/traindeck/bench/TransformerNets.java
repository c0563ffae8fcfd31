package org.traindeck.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntToDoubleFunction;

/**
 * The ViT and GPT networks {@link TransformerPeers} compares with PyTorch (bench/src/main/python/pytorch_peer.py has
 * each node for node): the fashion-vit and text-gpt samples' networks and the workstation-size ViT and GPT.
 */
final class TransformerNets {

    /**
     * The samples' rows' images (ViT) and windows (GPT), passed to the peer script too. Epochs of 64 steps: with 8
     * (512 samples, the figure until 2026-11-26) the JIT's compile threads still ran in the measured epochs and, with
     * two workers on two cores, took a core from them; the samples users train have ~940 (ViT) and ~65 (GPT) steps an
     * epoch.
     */
    static int sampleRows(String kind) {
        return Integer.getInteger("traindeck.bench.peerSamples", kind.equals("gpt") ? 2048 : 4096);
    }

    /**
     * A network with the bench's data and Adam; batch is the (global) batch; {@code stepFlops} gives a step's FLOPs
     * ({@link TransformerFlops}) from the data's output count (the vocabulary or the classes).
     */
    record Peer(
            String kind,
            String name,
            EngineBench.Workload workload,
            List<String> extraArgs,
            IntToDoubleFunction stepFlops) {}

    /** The workstation-size rows' samples (GPT windows, ViT images): a property, so that a quick try can take fewer. */
    static int workstationSamples(String kind) {
        return Integer.getInteger("traindeck.bench.workstationSamples", kind.startsWith("gpt") ? 256 : 512);
    }

    private TransformerNets() {}

    static Peer vit(Path home) throws Exception {
        String model = sampleModel(home, "fashion-vit.json");
        int samples = sampleRows("vit");
        return new Peer(
                "vit",
                "fashion-vit.json's ViT (synthetic 28×28 images, batch 64)",
                new EngineBench.Workload(
                        "ViT",
                        model,
                        "{\"type\": \"synthetic\", \"samples\": " + samples
                                + ", \"imageShape\": [28, 28, 1], \"numClasses\": 10, \"noise\": 0.5}",
                        samples,
                        64),
                List.of("-", String.valueOf(samples)),
                classes -> TransformerFlops.vit(64, 28, 1, 4, 64, 2, 2, true, classes));
    }

    /** A ViT at the size a workstation user trains: width 192, depth 6, 3 heads, 32×32×3 images in 4×4 patches, batch 64. */
    static Peer vitWorkstation() {
        int samples = workstationSamples("vit");
        String model =
                "{\"type\": \"vit\", \"patch\": 4, \"width\": 192, \"depth\": 6, \"heads\": 3, \"mlpRatio\": 4, \"classToken\": true}";
        return new Peer(
                "vit-ws",
                "ViT 192 wide, 6 deep, 3 heads (synthetic 32×32×3 images, 4×4 patches, batch 64)",
                new EngineBench.Workload(
                        "ViT-ws",
                        model,
                        "{\"type\": \"synthetic\", \"samples\": " + samples
                                + ", \"imageShape\": [32, 32, 3], \"numClasses\": 10, \"noise\": 0.5}",
                        samples,
                        64),
                List.of("-", String.valueOf(samples)),
                classes -> TransformerFlops.vit(64, 32, 3, 4, 192, 6, 4, true, classes));
    }

    /** A GPT at the size a workstation user trains: width 256, depth 4, 8 heads, context 128, batch 16. */
    static Peer gptWorkstation(Path home) {
        int samples = workstationSamples("gpt");
        Path text = home.resolve("data/text/gpl-3.txt").toAbsolutePath();
        String model =
                "{\"type\": \"gpt\", \"width\": 256, \"depth\": 4, \"heads\": 8, \"mlpRatio\": 4, \"dropout\": 0.1}";
        return new Peer(
                "gpt-ws",
                "GPT 256 wide, 4 deep, 8 heads (gpl-3.txt, " + samples + " windows of 128, batch 16)",
                new EngineBench.Workload(
                        "GPT-ws",
                        model,
                        "{\"type\": \"text\", \"path\": \"" + text.toString().replace("\\", "/")
                                + "\", \"context\": 128, \"stride\": 16, \"limit\": " + samples + "}",
                        samples,
                        16),
                List.of(text.toString(), String.valueOf(samples)),
                vocabulary -> TransformerFlops.gpt(16, 128, 256, 4, 4, vocabulary));
    }

    static Peer gpt(Path home) throws Exception {
        String model = sampleModel(home, "text-gpt.json");
        Path text = home.resolve("data/text/gpl-3.txt").toAbsolutePath();
        int samples = sampleRows("gpt");
        return new Peer(
                "gpt",
                "text-gpt.json's GPT (gpl-3.txt, " + samples + " windows of 64, batch 32)",
                new EngineBench.Workload(
                        "GPT",
                        model,
                        "{\"type\": \"text\", \"path\": \"" + text.toString().replace("\\", "/")
                                + "\", \"context\": 64, \"stride\": 16, \"limit\": " + samples + "}",
                        samples,
                        32),
                List.of(text.toString(), String.valueOf(samples)),
                vocabulary -> TransformerFlops.gpt(32, 64, 64, 2, 4, vocabulary));
    }

    /** The sample's "model" object as it stands, so that the bench follows the sample. */
    private static String sampleModel(Path home, String sample) throws Exception {
        JsonNode config = new ObjectMapper()
                .readTree(home.resolve("sample-configs").resolve(sample).toFile());
        return config.get("model").toString();
    }
}
