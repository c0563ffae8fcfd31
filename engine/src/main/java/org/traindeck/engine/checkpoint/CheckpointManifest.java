package org.traindeck.engine.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/** A checkpoint's {@code manifest.json}: its position and figures, and the size and SHA-256 of every other entry. */
final class CheckpointManifest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CheckpointManifest() {}

    static byte[] bytes(Checkpoint c, Map<String, byte[]> entries) throws IOException {
        ObjectNode m = JSON.createObjectNode();
        m.put("format", Checkpoint.FORMAT);
        m.put("formatVersion", c.formatVersion());
        m.put("runName", c.runName());
        m.put("stageName", c.stageName());
        m.put("stageIndex", c.stageIndex());
        m.put("epoch", c.epoch());
        m.put("batchInEpoch", c.batchInEpoch());
        m.put("globalStep", c.globalStep());
        m.put("stageStartStep", c.stageStartStep());
        m.put("elapsedSeconds", c.elapsedSeconds());
        m.put("epochLossSum", c.epochLossSum());
        m.put("epochExamples", c.epochExamples());
        ObjectNode best = m.putObject("best");
        c.best().forEach(best::put);
        m.put("modelFingerprint", c.modelFingerprint());
        m.put("parameterCount", c.parameterCount());
        m.put("updaterStateCount", c.updaterStateCount());
        m.put("dataType", c.dataType());
        m.put("reason", c.reason());
        m.put("createdMillis", c.createdMillis());
        m.put("workers", c.workers());
        m.put("runId", c.runId());
        m.put("optimizerLayout", c.optimizerLayout());
        ObjectNode files = m.putObject("entries");
        for (Map.Entry<String, byte[]> e : entries.entrySet()) {
            ObjectNode f = files.putObject(e.getKey());
            f.put("size", e.getValue().length);
            f.put("sha256", sha256(e.getValue()));
        }
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(m);
    }

    static Checkpoint parse(Path file, byte[] bytes) throws IOException, CheckpointException {
        JsonNode m = JSON.readTree(bytes);
        if (m == null || !Checkpoint.FORMAT.equals(m.path("format").asText())) {
            throw new CheckpointException(file + " is not a TrainDeck checkpoint (its manifest has no \"format\": \""
                    + Checkpoint.FORMAT + "\")");
        }
        int version = m.path("formatVersion").asInt(-1);
        if (version != Checkpoint.FORMAT_VERSION) {
            throw new CheckpointException(file + " has checkpoint format " + version + "; this TrainDeck reads format "
                    + Checkpoint.FORMAT_VERSION);
        }
        Map<String, Double> best = new HashMap<>();
        m.path("best")
                .fields()
                .forEachRemaining(e -> best.put(e.getKey(), e.getValue().asDouble()));
        return new Checkpoint(
                version,
                m.path("runName").asText(),
                m.path("stageName").asText(),
                m.path("stageIndex").asInt(),
                m.path("epoch").asInt(),
                m.path("batchInEpoch").asInt(),
                m.path("globalStep").asLong(),
                m.path("stageStartStep").asLong(),
                m.path("elapsedSeconds").asDouble(),
                m.path("epochLossSum").asDouble(),
                m.path("epochExamples").asLong(),
                best,
                m.path("modelFingerprint").asText(),
                m.path("parameterCount").asLong(),
                m.path("updaterStateCount").asLong(),
                m.path("dataType").asText(),
                m.path("reason").asText(),
                m.path("createdMillis").asLong(),
                m.path("workers").asInt(1),
                m.path("runId").asText(""),
                m.path("optimizerLayout").asInt(1));
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
