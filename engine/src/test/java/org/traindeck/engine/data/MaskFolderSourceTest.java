package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.Task;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * Segmentation from an image folder and a mask folder paired by file name, on PNG files written here with ImageIO:
 * grayscale and palette masks read as class ids, a missing or extra partner, an id beyond the classes and a size
 * mismatch are each refused naming the config key and the file, and a small segmentation graph trains on them.
 */
class MaskFolderSourceTest {

    private static final int SIDE = 8;

    @TempDir
    Path dir;

    /** A square of class 1 (or 2 for odd samples) at a place that depends on i; the image is bright where the mask is. */
    private static int[][] mask(int i) {
        int[][] ids = new int[SIDE][SIDE];
        int x0 = i % 4;
        int y0 = (i / 4) % 4;
        for (int y = y0; y < y0 + 4; y++) {
            for (int x = x0; x < x0 + 4; x++) {
                ids[y][x] = i % 2 == 0 ? 1 : 2;
            }
        }
        return ids;
    }

    private static BufferedImage imageOf(int[][] ids) {
        BufferedImage image = new BufferedImage(ids[0].length, ids.length, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < ids.length; y++) {
            for (int x = 0; x < ids[0].length; x++) {
                int v = ids[y][x] * 100;
                image.setRGB(x, y, (v << 16) | (v << 8) | v);
            }
        }
        return image;
    }

    private static BufferedImage grayMask(int[][] ids) {
        BufferedImage m = new BufferedImage(ids[0].length, ids.length, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < ids.length; y++) {
            for (int x = 0; x < ids[0].length; x++) {
                m.getRaster().setSample(x, y, 0, ids[y][x]);
            }
        }
        return m;
    }

    /** A palette mask whose colours are nothing like its ids: the palette index is the class. */
    private static BufferedImage paletteMask(int[][] ids) {
        byte[] r = {(byte) 255, 0, 0, (byte) 200};
        byte[] g = {0, (byte) 255, 0, (byte) 200};
        byte[] b = {0, 0, (byte) 255, (byte) 200};
        BufferedImage m = new BufferedImage(
                ids[0].length, ids.length, BufferedImage.TYPE_BYTE_INDEXED, new IndexColorModel(8, 4, r, g, b));
        for (int y = 0; y < ids.length; y++) {
            for (int x = 0; x < ids[0].length; x++) {
                m.getRaster().setSample(x, y, 0, ids[y][x]);
            }
        }
        return m;
    }

    /** n pairs of PNGs named s00.png…, the masks alternately grayscale and palette. */
    private void writePairs(int n) throws IOException {
        Files.createDirectories(dir.resolve("images"));
        Files.createDirectories(dir.resolve("masks"));
        for (int i = 0; i < n; i++) {
            int[][] ids = mask(i);
            String name = String.format("s%02d", i);
            ImageIO.write(
                    imageOf(ids), "png", dir.resolve("images/" + name + ".png").toFile());
            ImageIO.write(
                    i % 2 == 0 ? grayMask(ids) : paletteMask(ids),
                    "png",
                    dir.resolve("masks/" + name + ".png").toFile());
        }
    }

    private RunConfig config(String extra, int epochs) {
        return ConfigParser.parse("""
                {"name": "masks", "outputDir": "%s", "seed": 5,
                 "model": {"type": "graph", "layers": [
                   {"name": "c1", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"},
                   {"name": "c2", "type": "conv2d", "filters": 8, "kernel": 3, "activation": "relu"}]},
                 "data": {"train": {"type": "masks", "images": "images", "masks": "masks", "width": %d, "height": %d,
                                    "numClasses": 3%s},
                          "validationSplit": 0.25},
                 "stages": [{"epochs": %d, "batchSize": 4, "optimizer": {"type": "adam", "learningRate": 0.02},
                             "augmentation": {"flipHorizontal": true, "rotate90": true}}]}
                """.formatted(dir.resolve("runs"), SIDE, SIDE, extra, epochs), dir)
                .orThrow();
    }

    private InvalidConfigException refusal() {
        RunConfig config = config("", 1);
        return catchThrowableOfType(
                () -> DataLoader.load(config, config.data(), "data").close(), InvalidConfigException.class);
    }

    @Test
    void grayscaleAndPaletteMasksReadAsClassIds() throws IOException {
        writePairs(4);
        RunConfig config = config("", 1);
        try (DataLoader.Loaded loaded = DataLoader.load(config, config.data(), "data")) {
            Dataset all = loaded.train();
            assertThat(all.task()).isEqualTo(Task.SEGMENTATION);
            assertThat(all.numClasses()).isEqualTo(3);
            assertThat(all.targetLength()).isEqualTo(SIDE * SIDE);
        }
        RunConfig whole =
                ConfigParser.parse(Files.readString(writeWholeConfig()), dir).orThrow();
        try (DataLoader.Loaded loaded = DataLoader.load(whole, whole.data(), "data")) {
            for (int i = 0; i < 4; i++) {
                float[] ids = new float[SIDE * SIDE];
                loaded.train().copyTargets(i, ids, 0);
                int[][] want = mask(i);
                for (int p = 0; p < ids.length; p++) {
                    assertThat((int) ids[p]).as("sample %d pixel %d", i, p).isEqualTo(want[p / SIDE][p % SIDE]);
                }
            }
        }
    }

    private Path writeWholeConfig() throws IOException {
        Path file = dir.resolve("whole.json");
        Files.writeString(file, """
                {"name": "whole", "model": {"type": "graph", "layers": [{"type": "conv2d", "filters": 2, "kernel": 3}]},
                 "data": {"train": {"type": "masks", "images": "images", "masks": "masks", "width": %d, "height": %d, "numClasses": 3}},
                 "stages": [{"epochs": 1, "batchSize": 2}]}
                """.formatted(SIDE, SIDE));
        return file;
    }

    @Test
    void aSmallSegmentationGraphTrainsOnTheFolders() throws IOException {
        writePairs(16);
        RunResult result = TrainingRun.open(RunRequest.of(config("", 15))).runHere();
        assertThat(result.status()).as(result.message()).isEqualTo(RunResult.Status.FINISHED);
        assertThat(result.lastMetrics()).containsKey("val/mean_iou");
        // three quarters of the pixels are background: predicting it everywhere scores 0.75
        assertThat(result.lastMetrics().get("val/pixel_accuracy")).isGreaterThan(0.9);
    }

    @Test
    void anImageWithoutItsMaskIsNamed() throws IOException {
        writePairs(3);
        Files.delete(dir.resolve("masks/s01.png"));
        InvalidConfigException e = refusal();
        assertThat(e.problems().get(0).path()).isEqualTo("data.train.masks");
        assertThat(e.getMessage()).contains("s01.png has no mask");
    }

    @Test
    void aMaskWithoutItsImageIsNamed() throws IOException {
        writePairs(3);
        ImageIO.write(grayMask(mask(0)), "png", dir.resolve("masks/stray.png").toFile());
        InvalidConfigException e = refusal();
        assertThat(e.problems().get(0).path()).isEqualTo("data.train.masks");
        assertThat(e.getMessage()).contains("stray.png has no image");
    }

    @Test
    void aClassIdBeyondTheClassesIsNamedWithItsPixel() throws IOException {
        writePairs(3);
        int[][] ids = mask(2);
        ids[5][6] = 3;
        ImageIO.write(grayMask(ids), "png", dir.resolve("masks/s02.png").toFile());
        InvalidConfigException e = refusal();
        assertThat(e.problems().get(0).path()).isEqualTo("data.train.masks");
        assertThat(e.getMessage())
                .contains("s02.png")
                .contains("pixel (x 6, y 5) holds class 3")
                .contains("numClasses is 3");
    }

    @Test
    void aMaskOfAnotherSizeThanItsImageIsNamed() throws IOException {
        writePairs(3);
        ImageIO.write(
                grayMask(new int[SIDE][SIDE + 2]),
                "png",
                dir.resolve("masks/s01.png").toFile());
        InvalidConfigException e = refusal();
        assertThat(e.problems().get(0).path()).isEqualTo("data.train.masks");
        assertThat(e.getMessage()).contains("s01.png is 10×8 pixels but its image s01.png is 8×8");
    }

    @Test
    void anRgbMaskIsRefused() throws IOException {
        writePairs(3);
        ImageIO.write(imageOf(mask(1)), "png", dir.resolve("masks/s01.png").toFile());
        InvalidConfigException e = refusal();
        assertThat(e.getMessage()).contains("s01.png has 3 colour channels");
    }
}
