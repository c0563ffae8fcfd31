package org.traindeck.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;

/** Inputs of issue 35 that ended in a stack trace: each now ends in exit 2 and a message that says where. */
class HostileInputsTest {

    private static void assertLocatedRefusal(MainAccess.Result r, String where, String what) {
        String all = r.stdout() + r.stderr();
        assertThat(r.exitCode()).as(all).isEqualTo(2);
        assertThat(all).contains(where).contains(what).doesNotContain("\tat ").doesNotContain("Exception");
    }

    /** A .npy with the given header shape and no data (every shape here holds zero values). */
    private static void writeEmptyNpy(Path file, String descr, String shape) throws IOException {
        String header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int total = 10 + header.length() + 1;
        header = header + " ".repeat((64 - total % 64) % 64) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + header.length()).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93)
                .put("NUMPY".getBytes(StandardCharsets.US_ASCII))
                .put((byte) 1)
                .put((byte) 0);
        b.putShort((short) header.length()).put(header.getBytes(StandardCharsets.US_ASCII));
        Files.write(file, b.array());
    }

    @Test
    void aNpyOfZeroWidthSamplesIsALocatedError(@TempDir Path dir) throws IOException {
        writeEmptyNpy(dir.resolve("x.npy"), "<f4", "(4, 0)");
        Files.write(dir.resolve("y.npy"), npyInts(new long[] {0, 1, 0, 1}));
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "z", "outputDir": "out", "model": {"type": "mlp", "hidden": [4]},
                 "data": {"train": {"type": "numpy", "inputs": "x.npy", "targets": "y.npy"}},
                 "stages": [{"epochs": 1, "batchSize": 2}]}""");

        assertLocatedRefusal(MainAccess.run("train", config.toString()), "data.train.inputs", "no values");
    }

    private static byte[] npyInts(long[] values) {
        String header = "{'descr': '<i8', 'fortran_order': False, 'shape': (" + values.length + ",), }";
        int total = 10 + header.length() + 1;
        header = header + " ".repeat((64 - total % 64) % 64) + "\n";
        ByteBuffer b =
                ByteBuffer.allocate(10 + header.length() + 8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93)
                .put("NUMPY".getBytes(StandardCharsets.US_ASCII))
                .put((byte) 1)
                .put((byte) 0);
        b.putShort((short) header.length()).put(header.getBytes(StandardCharsets.US_ASCII));
        for (long v : values) {
            b.putLong(v);
        }
        return b.array();
    }

    @Test
    void anMlpOfFiftyThousandLayersIsRefusedBeforeAnythingIsBuilt(@TempDir Path dir) throws IOException {
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "h", "outputDir": "out", "model": {"type": "mlp", "hidden": [%s]},
                 "data": {"train": {"type": "synthetic", "samples": 16, "features": 4, "numClasses": 2}},
                 "stages": [{"epochs": 1, "batchSize": 4}]}""".formatted(String.join(",", Collections.nCopies(50_000, "8"))));

        long start = System.nanoTime();
        MainAccess.Result r = MainAccess.run("train", config.toString());
        double seconds = (System.nanoTime() - start) / 1e9;

        assertLocatedRefusal(r, "model.hidden", "2000");
        assertThat(seconds).as("refused before anything is built").isLessThan(20);
    }

    @Test
    void aSequenceHeadAfterPoolingTheSequenceAwayIsALocatedError(@TempDir Path dir) throws IOException {
        String text =
                TestPaths.repoRoot().resolve("data/text/gpl-3.txt").toString().replace("\\", "/");
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "s", "outputDir": "out",
                 "model": {"type": "graph", "layers": [{"type": "embedding", "units": 8}, {"type": "globalPool"}]},
                 "data": {"train": {"type": "text", "path": "%s", "context": 16, "limit": 64}},
                 "stages": [{"epochs": 1, "batchSize": 8}]}""".formatted(text));

        assertLocatedRefusal(MainAccess.run("validate", config.toString()), "model.layers[1]", "sequence");
        assertLocatedRefusal(MainAccess.run("train", config.toString()), "model.layers[1]", "sequence");
    }

    /** Found by GeneratedInputsTest: a dense, layer norm or dropout on a text source's ids validated, then failed to train. */
    @Test
    void aNodeOtherThanAnEmbeddingOnTokenIdsIsALocatedError(@TempDir Path dir) throws IOException {
        String text =
                TestPaths.repoRoot().resolve("data/text/gpl-3.txt").toString().replace("\\", "/");
        for (String first : new String[] {
            "{\"type\": \"dense\", \"units\": 4}",
            "{\"type\": \"layerNorm\"}",
            "{\"type\": \"spatialDropout\", \"rate\": 0.1}"
        }) {
            Path config = dir.resolve("c.json");
            Files.writeString(config, """
                    {"name": "t", "outputDir": "out", "model": {"type": "graph", "layers": [%s, {"type": "dense", "units": 4}]},
                     "data": {"train": {"type": "text", "path": "%s", "context": 8, "limit": 24}},
                     "stages": [{"epochs": 1, "batchSize": 4}]}""".formatted(first, text));

            assertLocatedRefusal(
                    MainAccess.run("validate", config.toString()), "model.layers[0]", "add an \"embedding\" before it");
        }
    }

    /** Found by GeneratedInputsTest: pooling along a text's steps validated, then the per-step labels did not match. */
    @Test
    void aSequenceHeadAfterTheStepsWereHalvedIsALocatedError(@TempDir Path dir) throws IOException {
        String text =
                TestPaths.repoRoot().resolve("data/text/gpl-3.txt").toString().replace("\\", "/");
        Path config = dir.resolve("c.json");
        Files.writeString(config, """
                {"name": "p", "outputDir": "out",
                 "model": {"type": "graph", "layers": [{"type": "embedding", "units": 8}, {"type": "maxPool1d"}]},
                 "data": {"train": {"type": "text", "path": "%s", "context": 8, "limit": 24}},
                 "stages": [{"epochs": 1, "batchSize": 4}]}""".formatted(text));

        assertLocatedRefusal(
                MainAccess.run("validate", config.toString()), "model.layers[1]", "each of the data's 8 steps");
    }
}
