package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: `traindeck train` in a child JVM with a 96 MB heap trains a small model for an epoch over a float32
 * .npy of about 190 MB, every sample of it, with batches prepared ahead on the loader thread. The memory mapping
 * holds the data, not the heap.
 */
class NumpyTrainingLargerThanHeapTest {

    private static final int SAMPLES = 2000;
    private static final int FEATURES = 24_000;
    private static final int BATCH = 50;

    @TempDir
    Path dir;

    @AfterEach
    void removeTheBigFile() throws IOException {
        Files.deleteIfExists(dir.resolve("x.npy"));
    }

    @Test
    void aChildWithASmallHeapTrainsAnEpochOverALargerFile() throws Exception {
        writeX(dir.resolve("x.npy"));
        writeY(dir.resolve("y.npy"));
        long heapBytes = 96L << 20;
        assertThat(Files.size(dir.resolve("x.npy"))).isGreaterThan(heapBytes * 19 / 10);
        Files.writeString(dir.resolve("config.json"), """
                {"name": "big", "outputDir": "out", "seed": 1,
                 "model": {"type": "graph", "layers": [{"type": "dense", "units": 4, "activation": "tanh"}]},
                 "data": {"train": {"type": "numpy", "inputs": "x.npy", "targets": "y.npy"}},
                 "stages": [{"epochs": 1, "batchSize": %d, "optimizer": {"type": "adam", "learningRate": 0.001}}]}
                """.formatted(BATCH));

        Path log = dir.resolve("child.log");
        List<String> command = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx96m",
                "-Dorg.deeplearning4j.resources.directory=" + dir.resolve("dl4j"),
                "-cp",
                System.getProperty("java.class.path"),
                "org.traindeck.engine.cli.Main",
                "train",
                dir.resolve("config.json").toString());
        ProcessBuilder pb =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        Process child = pb.start();
        // a bound for a hung child, not a timing assumption
        boolean exited = child.waitFor(10, TimeUnit.MINUTES);
        if (!exited) {
            child.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(exited).as("child finished; output: %s", output).isTrue();
        assertThat(child.exitValue()).as("child exit; output: %s", output).isZero();
        assertThat(output).contains("finished: " + SAMPLES / BATCH + " steps");

        List<Double> losses = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(dir.resolve("out/big/metrics.jsonl"))) {
            JsonNode e = json.readTree(line);
            if ("train/loss".equals(e.path("name").asText())) {
                losses.add(e.get("value").asDouble());
            }
        }
        assertThat(losses)
                .hasSize(SAMPLES / BATCH)
                .allSatisfy(l -> assertThat(l).isFinite());
        // the classes differ in their mean: an epoch over the whole file learns them
        assertThat(losses.subList(losses.size() - 5, losses.size()).stream()
                        .mapToDouble(d -> d)
                        .average()
                        .orElseThrow())
                .isLessThan(losses.subList(0, 5).stream()
                        .mapToDouble(d -> d)
                        .average()
                        .orElseThrow());
    }

    private static String header(String descr, String shape) {
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int padded = (dict.length() + 1 + 10 + 63) / 64 * 64 - 10;
        return dict + " ".repeat(padded - dict.length() - 1) + "\n";
    }

    /** Sample i of class i % 2: values around +0.1 or -0.1, streamed out 1 MB at a time. */
    private static void writeX(Path file) throws IOException {
        String header = header("<f4", "(" + SAMPLES + ", " + FEATURES + ")");
        ByteBuffer buf = ByteBuffer.allocate(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
        buf.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0})
                .putShort((short) header.length())
                .put(header.getBytes(StandardCharsets.ISO_8859_1));
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (int i = 0; i < SAMPLES; i++) {
                float mean = i % 2 == 0 ? 0.1f : -0.1f;
                for (int j = 0; j < FEATURES; j++) {
                    buf.putFloat(mean + ((i * 31 + j * 17) % 101 - 50) / 500f);
                    if (!buf.hasRemaining()) {
                        flush(out, buf);
                    }
                }
            }
            flush(out, buf);
        }
    }

    private static void writeY(Path file) throws IOException {
        String header = header("|u1", "(" + SAMPLES + ",)");
        ByteBuffer buf = ByteBuffer.allocate(10 + header.length() + SAMPLES).order(ByteOrder.LITTLE_ENDIAN);
        buf.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0})
                .putShort((short) header.length())
                .put(header.getBytes(StandardCharsets.ISO_8859_1));
        for (int i = 0; i < SAMPLES; i++) {
            buf.put((byte) (i % 2));
        }
        Files.write(file, buf.array());
    }

    private static void flush(FileChannel out, ByteBuffer buf) throws IOException {
        buf.flip();
        while (buf.hasRemaining()) {
            out.write(buf);
        }
        buf.clear();
    }
}
