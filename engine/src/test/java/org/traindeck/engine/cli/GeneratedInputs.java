package org.traindeck.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.traindeck.engine.TestPaths;

/**
 * Hostile inputs made from a seed: two-node layer graphs (every node type after every other, each node's required
 * parameters drawn from the schema's own bounds) on vector, image and text data, and NumPy files whose headers lie.
 */
final class GeneratedInputs {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final Random random;
    private final List<ObjectNode> nodeTypes = new ArrayList<>();

    GeneratedInputs(long seed) throws IOException {
        random = new Random(seed);
        JsonNode schema = JSON.readTree(
                TestPaths.repoRoot().resolve("docs/run-config.schema.json").toFile());
        for (JsonNode alternative : schema.at("/$defs/layer/oneOf")) {
            nodeTypes.add((ObjectNode) alternative);
        }
    }

    int nodeTypeCount() {
        return nodeTypes.size();
    }

    /** The data sections the graphs are tried on: feature vectors, images and text (a file written into {@code dir}). */
    static List<String> dataSections(Path dir) throws IOException {
        Path text = dir.resolve("text.txt");
        Files.writeString(text, "the quick brown fox jumps over the lazy dog. ".repeat(40));
        return List.of("""
                {"train": {"type": "synthetic", "samples": 24, "features": 6, "numClasses": 3}}""", """
                {"train": {"type": "synthetic", "samples": 24, "imageShape": [8, 8, 1], "numClasses": 3}}""", """
                {"train": {"type": "text", "path": "%s", "context": 8, "limit": 24}}""".formatted(text.toString().replace("\\", "/")));
    }

    /** A config whose model is the graph [first, second] of node types {@code a} and {@code b}, on {@code data}. */
    String graphConfig(int a, int b, String data) {
        ObjectNode config = JSON.createObjectNode();
        config.put("name", "generated").put("outputDir", "out").put("seed", 1);
        ObjectNode model = config.putObject("model").put("type", "graph");
        ArrayNode layers = model.putArray("layers");
        layers.add(node(a, "first"));
        layers.add(node(b, "second"));
        try {
            config.set("data", JSON.readTree(data));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        config.putArray("stages").addObject().put("epochs", 1).put("batchSize", 4);
        config.putObject("checkpoint").put("keepBestPerStage", false);
        return config.toPrettyString();
    }

    private ObjectNode node(int type, String name) {
        ObjectNode alternative = nodeTypes.get(type);
        ObjectNode node = JSON.createObjectNode();
        node.put("type", alternative.at("/properties/type/const").asText());
        node.put("name", name);
        for (JsonNode required : alternative.path("required")) {
            String key = required.asText();
            node.set(key, value(alternative.at("/properties/" + key)));
        }
        return node;
    }

    /** A value the schema allows for a property (small numbers, so that the graphs stay cheap to build). */
    private JsonNode value(JsonNode property) {
        if (property.has("enum")) {
            return property.get("enum").get(random.nextInt(property.get("enum").size()));
        }
        if (property.has("oneOf")) {
            return value(property.get("oneOf").get(0));
        }
        String type = property.path("type").asText("integer");
        switch (type) {
            case "integer" -> {
                int min = property.path("minimum").asInt(1);
                return JSON.getNodeFactory()
                        .numberNode(min
                                + random.nextInt(Math.max(
                                        1, Math.min(4, property.path("maximum").asInt(min + 4) - min + 1))));
            }
            case "number" -> {
                double min = property.path("minimum").asDouble(0);
                double max = Math.min(property.path("maximum").asDouble(1), min + 1);
                return JSON.getNodeFactory().numberNode(min + random.nextDouble() * (max - min) * 0.5);
            }
            case "boolean" -> {
                return JSON.getNodeFactory().booleanNode(random.nextBoolean());
            }
            case "array" -> {
                ArrayNode a = JSON.createArrayNode();
                int n = property.path("minItems").asInt(1);
                for (int i = 0; i < n; i++) {
                    a.add(value(property.path("items")));
                }
                return a;
            }
            default -> {
                return JSON.getNodeFactory().textNode("x");
            }
        }
    }

    /** {@code count} pairs of node types drawn without repeats, or every pair when {@code count} is at least their number. */
    List<int[]> pairs(int count) {
        List<int[]> all = new ArrayList<>();
        for (int a = 0; a < nodeTypes.size(); a++) {
            for (int b = 0; b < nodeTypes.size(); b++) {
                all.add(new int[] {a, b});
            }
        }
        Collections.shuffle(all, random);
        return all.subList(0, Math.min(count, all.size()));
    }

    /** A NumPy file whose header is drawn from lies and edge cases, with some data (often not the amount it declares). */
    byte[] npy() {
        String[] descrs = {
            "<f4", "<f8", "|u1", "<i8", "<i4", ">f4", "|b1", "<c8", "O", "<U3", "|V4", "<f2", "f4", "<f16", "", "<f4<f4"
        };
        String[] shapes = {
            "()",
            "(0,)",
            "(4, 0)",
            "(0, 4)",
            "(3,)",
            "(2, 3)",
            "(2, 3, 4, 5, 6, 7, 8)",
            "(-1, 2)",
            "(99999999999, 99999999999)",
            "(2147483648,)",
            "(2, 'a')",
            "(2.5,)",
            "[2, 3]",
            "(2,, 3)",
            "(",
            "((2,),)",
            "(1,) * 3"
        };
        String[] orders = {"False", "True", "0", "None", "'no'"};
        String descr = descrs[random.nextInt(descrs.length)];
        String shape = shapes[random.nextInt(shapes.length)];
        String order = orders[random.nextInt(orders.length)];
        StringBuilder header = new StringBuilder("{");
        List<String> parts =
                new ArrayList<>(List.of("'descr': '" + descr + "'", "'fortran_order': " + order, "'shape': " + shape));
        Collections.shuffle(parts, random);
        if (random.nextInt(8) == 0) {
            parts.remove(random.nextInt(parts.size()));
        }
        if (random.nextInt(8) == 0) {
            parts.add("'extra': __import__('os').system('false')");
        }
        header.append(String.join(", ", parts)).append(", }");
        int total = 10 + header.length() + 1;
        header.append(" ".repeat((64 - total % 64) % 64)).append('\n');
        byte[] h = header.toString().getBytes(StandardCharsets.US_ASCII);
        int dataBytes = random.nextInt(4) == 0 ? 0 : random.nextInt(200);
        int declared = random.nextInt(10) == 0 ? random.nextInt(65536) : h.length;
        byte major = (byte) (random.nextInt(10) == 0 ? 9 : 1);
        ByteBuffer b = ByteBuffer.allocate(10 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93)
                .put("NUMPY".getBytes(StandardCharsets.US_ASCII))
                .put(major)
                .put((byte) 0);
        b.putShort((short) declared).put(h);
        for (int i = 0; i < dataBytes; i++) {
            b.put((byte) random.nextInt(256));
        }
        byte[] bytes = b.array();
        if (random.nextInt(6) == 0) {
            // cut anywhere, the header included
            bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length));
        }
        return bytes;
    }

    /** The node types by name, in schema order (for messages). */
    String typeName(int i) {
        return nodeTypes.get(i).at("/properties/type/const").asText();
    }
}
