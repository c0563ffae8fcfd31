package org.traindeck.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Stage 1 ("volume16") of sample-configs/xray-volume-cascade.json as a {@link TransformerPeers} row: the sample's own
 * model and training source (the real phantoms, a diffusion task with the sample's schedule and prediction), against the same network and
 * diffusion step in PyTorch (bench/src/main/python/volume_diffusion_peer.py, the peer kind "xray16"). The stage's EMA,
 * learning-rate schedule and sampling are left out on both sides: the row measures the training step.
 */
final class VolumeDiffusionPeer {

    static final String SAMPLE = "xray-volume-cascade.json";

    private VolumeDiffusionPeer() {}

    /**
     * The phantoms an epoch trains on: all 800 by default (25 steps of 32); -Dtraindeck.bench.xraySamples=N for a
     * quicker try.
     */
    static int samples() {
        return Integer.getInteger("traindeck.bench.xraySamples", 800);
    }

    static TransformerNets.Peer stage1(Path home) throws Exception {
        Path samples = home.resolve("sample-configs");
        JsonNode config = new ObjectMapper().readTree(samples.resolve(SAMPLE).toFile());
        JsonNode stage = config.get("stages").get(0);
        JsonNode model = stage.has("model") ? stage.get("model") : config.get("model");
        JsonNode source = stage.has("data") ? stage.get("data") : config.get("data");
        ObjectNode train = ((ObjectNode) source.get("train")).deepCopy();
        String back = backProjectionKey(model, train.get("inputs"));
        resolvePaths((ObjectNode) train.get("inputs"), samples);
        train.set("targets", resolved(train.get("targets").asText(), samples));
        int n = samples();
        train.put("limit", n);
        int batch = stage.get("batchSize").asInt();
        String npz = train.get("targets").asText().replaceFirst(":[^:/\\\\]+$", "");
        int width = firstOfType(model, "patches3d").get("units").asInt();
        int depth = countOfType(model, "transformerBlock");
        JsonNode diffusion = train.get("diffusion");
        String prediction = diffusion.path("prediction").asText("epsilon");
        String steps = diffusion.path("schedule").asText("linear") + ":"
                + diffusion.path("timesteps").asInt(1000) + ":" + prediction;
        return new TransformerNets.Peer(
                "xray16",
                SAMPLE + "'s stage 1 \"" + stage.get("name").asText() + "\" (ViT over 16³ volumes, " + n
                        + " phantoms, batch " + batch + ", diffusion, " + prediction + ")",
                new EngineBench.Workload("xray16", model.toString(), train.toString(), n, batch),
                List.of(npz, String.valueOf(n), steps, back),
                ignored -> TransformerFlops.volumeDiffusion(batch, 64, 64, width, depth, 4, 64, 32, 64));
    }

    /** A source path ("../data/x.npz:key") relative to the sample's folder, made absolute for the bench's scratch. */
    private static TextNode resolved(String spec, Path folder) {
        int colon = spec.lastIndexOf(':');
        String file = colon > 1 ? spec.substring(0, colon) : spec;
        String key = colon > 1 ? spec.substring(colon) : "";
        String path = folder.resolve(file).normalize().toString().replace("\\", "/");
        return TextNode.valueOf(path + key);
    }

    private static void resolvePaths(ObjectNode inputs, Path folder) {
        for (Iterator<Map.Entry<String, JsonNode>> it = inputs.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            e.setValue(resolved(e.getValue().asText(), folder));
        }
    }

    /**
     * The .npz array of a second volume input cut by a patches3d node of its own (the views' back-projection, added to
     * the noisy volume's tokens), or "-" when the model has none.
     */
    private static String backProjectionKey(JsonNode model, JsonNode inputs) {
        for (JsonNode layer : model.get("layers")) {
            String input = layer.path("inputs").asText();
            if ("patches3d".equals(layer.path("type").asText()) && !"noisy".equals(input)) {
                if (!inputs.has(input)) {
                    throw new IllegalStateException(SAMPLE + ": the bench's peer reads " + input
                            + " from the training source's inputs, which do not name it");
                }
                String spec = inputs.get(input).asText();
                return spec.substring(spec.lastIndexOf(':') + 1);
            }
        }
        return "-";
    }

    private static JsonNode firstOfType(JsonNode model, String type) {
        for (JsonNode layer : model.get("layers")) {
            if (type.equals(layer.path("type").asText())) {
                return layer;
            }
        }
        throw new IllegalStateException(SAMPLE + ": the bench's peer expects a " + type + " node in stage 1's model");
    }

    private static int countOfType(JsonNode model, String type) {
        int n = 0;
        for (JsonNode layer : model.get("layers")) {
            n += type.equals(layer.path("type").asText()) ? 1 : 0;
        }
        return n;
    }
}
