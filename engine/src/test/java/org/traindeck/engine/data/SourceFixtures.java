package org.traindeck.engine.data;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.traindeck.engine.data.numpy.NpyHeaderWriter;

/** One small real source of each type the schema lists, its files written into a folder, as a user would give it. */
public final class SourceFixtures {

    private SourceFixtures() {}

    /** The source's JSON object, its files (if any) written under {@code dir}. */
    public static String source(String type, Path dir) throws IOException {
        return switch (type) {
            case "idx" -> {
                Path folder = Files.createDirectories(dir.resolve("idx"));
                DataReadersTest.writeIdx(folder, "train", 12, 4, 4, false);
                yield "{\"type\": \"idx\", \"path\": \"idx\"}";
            }
            case "csv" -> {
                StringBuilder rows = new StringBuilder();
                for (int i = 0; i < 12; i++) {
                    rows.append(i * 0.1)
                            .append(',')
                            .append(1 - i * 0.05)
                            .append(',')
                            .append(i % 2)
                            .append('\n');
                }
                Files.writeString(dir.resolve("rows.csv"), rows);
                yield "{\"type\": \"csv\", \"path\": \"rows.csv\"}";
            }
            case "images" -> {
                for (int i = 0; i < 8; i++) {
                    Path cls = Files.createDirectories(dir.resolve("images/" + (i % 2 == 0 ? "even" : "odd")));
                    ImageIO.write(
                            gray(i, 4), "png", cls.resolve("i" + i + ".png").toFile());
                }
                yield "{\"type\": \"images\", \"path\": \"images\", \"width\": 4, \"height\": 4, \"channels\": 1}";
            }
            case "masks" -> {
                Path images = Files.createDirectories(dir.resolve("masks/images"));
                Path masks = Files.createDirectories(dir.resolve("masks/labels"));
                for (int i = 0; i < 8; i++) {
                    ImageIO.write(
                            gray(i, 4), "png", images.resolve("s" + i + ".png").toFile());
                    writeMask(masks.resolve("s" + i + ".png"), i);
                }
                yield "{\"type\": \"masks\", \"images\": \"masks/images\", \"masks\": \"masks/labels\", \"width\": 4,"
                        + " \"height\": 4, \"channels\": 1, \"numClasses\": 2}";
            }
            case "synthetic" -> "{\"type\": \"synthetic\", \"samples\": 12, \"features\": 3, \"numClasses\": 2}";
            case "text" -> {
                Files.writeString(
                        dir.resolve("words.txt"),
                        "the cat sat on the mat, the dog sat on the log. ",
                        StandardCharsets.UTF_8);
                yield "{\"type\": \"text\", \"path\": \"words.txt\", \"context\": 4}";
            }
            case "numpy" -> {
                float[] x = new float[12 * 3];
                long[] y = new long[12];
                for (int i = 0; i < 12; i++) {
                    x[i * 3] = i;
                    x[i * 3 + 1] = -i;
                    x[i * 3 + 2] = i % 3;
                    y[i] = i % 2;
                }
                writeFloats(dir.resolve("x.npy"), x, 12, 3);
                writeLongs(dir.resolve("y.npy"), y);
                yield "{\"type\": \"numpy\", \"inputs\": \"x.npy\", \"targets\": \"y.npy\", \"numClasses\": 2}";
            }
            default ->
                throw new IllegalArgumentException("no fixture for source type \"" + type
                        + "\": add one here, a few samples in real files, as a user would give them");
        };
    }

    /** A one-stage run of a small layer graph on {@code sourceJson}. */
    public static String runConfig(String sourceJson) {
        return "{\"name\": \"sources\", \"seed\": 3, \"model\": {\"type\": \"graph\", \"layers\": ["
                + "{\"name\": \"d\", \"type\": \"dense\", \"units\": 4, \"activation\": \"relu\"}]},"
                + " \"data\": {\"train\": " + sourceJson + "},"
                + " \"stages\": [{\"name\": \"s\", \"epochs\": 1, \"batchSize\": 4,"
                + " \"optimizer\": {\"type\": \"adam\", \"learningRate\": 0.01}}]}";
    }

    /** Rewrites one mask of the "masks" fixture (same size, other classes), as a user fixing a label would. */
    public static void editMask(Path dir) throws IOException {
        writeMask(dir.resolve("masks/labels/s0.png"), 1);
    }

    private static BufferedImage gray(int i, int side) {
        BufferedImage image = new BufferedImage(side, side, BufferedImage.TYPE_BYTE_GRAY);
        image.getRaster().setSample(i % side, (i / side) % side, 0, 255);
        image.getRaster().setSample((i + 1) % side, 0, 0, 40 * (i % 3));
        return image;
    }

    private static void writeMask(Path file, int i) throws IOException {
        BufferedImage m = new BufferedImage(4, 4, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < 4; x++) {
                m.getRaster().setSample(x, y, 0, (x + y + i) % 2);
            }
        }
        ImageIO.write(m, "png", file.toFile());
    }

    private static void writeFloats(Path file, float[] values, long rows, long cols) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        write(file, "<f4", new long[] {rows, cols}, b);
    }

    private static void writeLongs(Path file, long[] values) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        write(file, "<i8", new long[] {values.length}, b);
    }

    private static void write(Path file, String descr, long[] shape, ByteBuffer data) throws IOException {
        try (OutputStream out = Files.newOutputStream(file)) {
            NpyHeaderWriter.write(descr, shape, out);
            out.write(data.array());
        }
    }
}
