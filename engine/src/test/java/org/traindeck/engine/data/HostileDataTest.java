package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.Task;

/** Damaged or hostile data files: a clear error naming the file (and line or offset), never a crash or a silent class. */
class HostileDataTest {

    private static void idx(Path dir, int claimedImages, int realImages, byte[] labels) throws IOException {
        try (OutputStream f = Files.newOutputStream(dir.resolve("train-images-idx3-ubyte"));
                DataOutputStream out = new DataOutputStream(f)) {
            out.writeInt(0x803);
            out.writeInt(claimedImages);
            out.writeInt(28);
            out.writeInt(28);
            out.write(new byte[realImages * 28 * 28]);
        }
        try (OutputStream f = Files.newOutputStream(dir.resolve("train-labels-idx1-ubyte"));
                DataOutputStream out = new DataOutputStream(f)) {
            out.writeInt(0x801);
            out.writeInt(claimedImages);
            out.write(labels);
        }
    }

    @Test
    void anIdxHeaderThatClaimsMoreImagesThanTheFileHoldsIsRefusedBeforeAllocating(@TempDir Path dir)
            throws IOException {
        idx(dir, 2_500_000, 10, new byte[10]);
        assertThat(Files.size(dir.resolve("train-images-idx3-ubyte"))).isLessThan(9000);

        assertThatThrownBy(() -> IdxReader.read(dir, "train", 0))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("says it holds 2500000 images of 28×28")
                .hasMessageContaining("truncated or damaged");
    }

    @Test
    void anIdxLabelOutOfRangeIsAnErrorWithItsOffset(@TempDir Path dir) throws IOException {
        byte[] labels = new byte[40];
        for (int i = 0; i < labels.length; i++) {
            labels[i] = (byte) (i % 10);
        }
        labels[17] = (byte) 255;
        idx(dir, 40, 40, labels);

        assertThatThrownBy(() -> IdxReader.read(dir, "train", 0))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("label 255 at byte offset 25 of " + dir.resolve("train-labels-idx1-ubyte"))
                .hasMessageContaining("the other labels take 10 values from 0 to 9");
    }

    private static Dataset csv(Path file, String text) throws IOException {
        Files.writeString(file, text);
        return CsvReader.read(
                file,
                new CsvSource("x", -1, false, ",", Task.CLASSIFICATION, null, null, SourceConfig.Normalize.NONE, 0),
                null);
    }

    @Test
    void csvClassLabelsAreWholeNumbersOrNamesNeverBlanksOrFractions(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("d.csv");
        assertThatThrownBy(() -> csv(f, "0.1,0.2,0\n0.3,0.4,1\n0.5,0.6,\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(f + " line 3, column 3: the label is empty");
        assertThatThrownBy(() -> csv(f, "0.1,0.2,0\n0.3,0.4,1.5\n0.5,0.6,1\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(f + " line 2, column 3: the label \"1.5\" is not a whole number");
        assertThatThrownBy(() -> csv(f, "0.1,0.2,0\n0.3,0.4,cat\n0.5,0.6,1\n"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("line 2, column 3: the label \"cat\" is a name among numeric labels");

        assertThat(csv(f, "0.1,0.2,0\n0.3,0.4,2\n0.5,0.6,1\n").numClasses()).isEqualTo(3);
        assertThat(csv(f, "0.1,0.2,cat\n0.3,0.4,dog\n").numClasses()).isEqualTo(2);
    }

    @Test
    void aCorruptImageIsNamed(@TempDir Path dir) throws IOException {
        for (String c : List.of("a", "b")) {
            Files.createDirectories(dir.resolve(c));
            for (int i = 0; i < 2; i++) {
                ImageIO.write(
                        new BufferedImage(4, 4, BufferedImage.TYPE_INT_RGB),
                        "png",
                        dir.resolve(c + "/" + i + ".png").toFile());
            }
        }
        Path corrupt = dir.resolve("b/1.png");
        byte[] bytes = Files.readAllBytes(corrupt);
        // the image data (after the 8-byte signature and the 25-byte header chunk) overwritten: its checksum no longer
        // holds
        Arrays.fill(bytes, 41, bytes.length - 12, (byte) 0x5a);
        Files.write(corrupt, bytes);

        assertThatThrownBy(() -> ImageFolderReader.read(dir, 4, 4, 1, 0, null))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(corrupt.toString())
                .hasMessageContaining("damaged image");
    }
}
