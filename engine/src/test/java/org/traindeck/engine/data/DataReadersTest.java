package org.traindeck.engine.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.TestPaths;
import org.traindeck.engine.config.CsvSource;
import org.traindeck.engine.config.SourceConfig;
import org.traindeck.engine.config.SyntheticSource;
import org.traindeck.engine.config.Task;

class DataReadersTest {

    private static CsvSource csv(String path, Task task, List<Integer> shape, SourceConfig.Normalize normalize) {
        return new CsvSource(path, -1, false, ",", task, null, shape, normalize, 0);
    }

    static void writeIdx(Path dir, String split, int n, int rows, int cols, boolean gzip) throws IOException {
        try (DataOutputStream images = new DataOutputStream(open(dir.resolve(split + "-images-idx3-ubyte"), gzip));
                DataOutputStream labels = new DataOutputStream(open(dir.resolve(split + "-labels-idx1-ubyte"), gzip))) {
            images.writeInt(0x803);
            images.writeInt(n);
            images.writeInt(rows);
            images.writeInt(cols);
            labels.writeInt(0x801);
            labels.writeInt(n);
            for (int i = 0; i < n; i++) {
                for (int p = 0; p < rows * cols; p++) {
                    images.writeByte(p == i % (rows * cols) ? 255 : 0);
                }
                labels.writeByte(i % 3);
            }
        }
    }

    private static OutputStream open(Path file, boolean gzip) throws IOException {
        return gzip ? new GZIPOutputStream(Files.newOutputStream(Path.of(file + ".gz"))) : Files.newOutputStream(file);
    }

    @Test
    void idxFilesReadPlainOrGzipped(@TempDir Path dir) throws IOException {
        writeIdx(dir, "train", 10, 4, 5, true);
        writeIdx(dir, "t10k", 4, 4, 5, false);

        Dataset train = IdxReader.read(dir, "train", 0);
        Dataset test = IdxReader.read(dir, "t10k", 2);

        assertThat(train.size()).isEqualTo(10);
        assertThat(train.imageShape()).isEqualTo(new SampleShape.Image(1, 4, 5));
        assertThat(train.classOf(4)).isEqualTo(1);
        float[] f = new float[20];
        train.copyFeatures(3, f, 0);
        assertThat(f[3]).isEqualTo(1f);
        assertThat(f[2]).isEqualTo(0f);
        assertThat(test.size()).isEqualTo(2);
    }

    @Test
    void aTruncatedIdxFileIsAClearError(@TempDir Path dir) throws IOException {
        writeIdx(dir, "train", 10, 4, 5, false);
        Path images = dir.resolve("train-images-idx3-ubyte");
        byte[] bytes = Files.readAllBytes(images);
        Files.write(images, Arrays.copyOf(bytes, bytes.length - 30));

        assertThatThrownBy(() -> IdxReader.read(dir, "train", 0)).hasMessageContaining("truncated or damaged");
    }

    @Test
    void theShippedDigitsReadAsImages() throws IOException {
        Path digits = TestPaths.repoRoot().resolve("data/digits/digits.csv.gz");
        Dataset d = CsvReader.read(
                digits,
                new CsvSource(
                        "x", -1, false, ",", Task.CLASSIFICATION, 10, List.of(8, 8, 1), SourceConfig.Normalize.NONE, 0),
                null);

        assertThat(d.size()).isEqualTo(1797);
        assertThat(d.numClasses()).isEqualTo(10);
        assertThat(d.imageShape()).isEqualTo(new SampleShape.Image(1, 8, 8));
        assertThat(d.classOf(0)).isEqualTo(0);
        assertThat(d.classOf(1)).isEqualTo(1);
    }

    @Test
    void csvNamedClassesAreSharedWithValidationData(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("train.csv"), "sepal,petal,kind\n1,2,setosa\n3,4,virginica\n5,6,setosa\n");
        Files.writeString(dir.resolve("val.csv"), "sepal,petal,kind\n1,2,virginica\n");
        CsvSource config =
                new CsvSource("x", -1, true, ",", Task.CLASSIFICATION, null, null, SourceConfig.Normalize.NONE, 0);

        Dataset train = CsvReader.read(dir.resolve("train.csv"), config, null);
        Dataset val = CsvReader.read(dir.resolve("val.csv"), config, train.classNames());

        assertThat(train.classNames()).containsExactly("setosa", "virginica");
        assertThat(train.classOf(1)).isEqualTo(1);
        assertThat(val.classOf(0)).isEqualTo(1);
    }

    @Test
    void csvProblemsNameTheLineAndColumn(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.csv"), "1,2,0\n3,x,1\n");
        Files.writeString(dir.resolve("b.csv"), "1,2,0\n3,1\n");
        Files.writeString(dir.resolve("c.csv"), "\n\n");

        assertThatThrownBy(() -> CsvReader.read(
                        dir.resolve("a.csv"), csv("a", Task.CLASSIFICATION, null, SourceConfig.Normalize.NONE), null))
                .hasMessageContaining("line 2, column 2: \"x\" is not a finite number");
        assertThatThrownBy(() -> CsvReader.read(
                        dir.resolve("b.csv"), csv("b", Task.CLASSIFICATION, null, SourceConfig.Normalize.NONE), null))
                .hasMessageContaining("line 2: 2 columns, but the first row has 3");
        assertThatThrownBy(() -> CsvReader.read(
                        dir.resolve("c.csv"), csv("c", Task.CLASSIFICATION, null, SourceConfig.Normalize.NONE), null))
                .hasMessageContaining("no data rows");
    }

    @Test
    void csvRegressionAndRgbImagesInChannelsFirstOrder(@TempDir Path dir) throws IOException {
        // one 1×2 RGB image per row (pixel-major, as numpy writes it), then the target
        Files.writeString(dir.resolve("r.csv"), "1,2,3,4,5,6,0.5\n");

        Dataset d = CsvReader.read(
                dir.resolve("r.csv"), csv("r", Task.REGRESSION, List.of(1, 2, 3), SourceConfig.Normalize.NONE), null);

        float[] f = new float[6];
        d.copyFeatures(0, f, 0);
        assertThat(f).containsExactly(1, 4, 2, 5, 3, 6);
        assertThat(d.targetOf(0)).isEqualTo(0.5f);
        assertThat(d.task()).isEqualTo(Task.REGRESSION);
    }

    @Test
    void normalisationIsFittedOnTrainingDataOnly(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("t.csv"), "0,5,0\n10,5,1\n");
        Dataset train = CsvReader.read(
                dir.resolve("t.csv"), csv("t", Task.CLASSIFICATION, null, SourceConfig.Normalize.MINMAX), null);
        Dataset other = train.subset(new int[] {1});

        Normalizer n = Normalizer.fit(SourceConfig.Normalize.MINMAX, train);
        float[] f = new float[2];
        n.apply(train).copyFeatures(1, f, 0);
        assertThat(f).containsExactly(1f, 0f);
        Normalizer s = Normalizer.fit(SourceConfig.Normalize.STANDARDIZE, train);
        s.apply(other).copyFeatures(0, f, 0);
        assertThat((double) f[0]).isCloseTo(1.0, within(1e-6));
        assertThat(f[1]).isEqualTo(0f);
    }

    @Test
    void imageFoldersUseSubFolderNamesAsClasses(@TempDir Path dir) throws IOException {
        for (String cls : List.of("cat", "dog")) {
            Files.createDirectories(dir.resolve(cls));
            for (int i = 0; i < 3; i++) {
                BufferedImage img = new BufferedImage(10, 6, BufferedImage.TYPE_INT_RGB);
                img.setRGB(0, 0, cls.equals("cat") ? 0xFFFFFF : 0x000000);
                ImageIO.write(img, "png", dir.resolve(cls).resolve(i + ".png").toFile());
            }
        }
        Files.writeString(dir.resolve("dog/notes.txt"), "not an image");

        Dataset d = ImageFolderReader.read(dir, 5, 3, 3, 0, null);

        assertThat(d.size()).isEqualTo(6);
        assertThat(d.classNames()).containsExactly("cat", "dog");
        assertThat(d.imageShape()).isEqualTo(new SampleShape.Image(3, 3, 5));
        assertThat(d.classOf(0)).isEqualTo(0);
        assertThat(d.classOf(5)).isEqualTo(1);
    }

    @Test
    void syntheticClassificationIsTheSameProblemForTrainingAndValidation() {
        SyntheticSource s = new SyntheticSource(Task.CLASSIFICATION, 200, 4, null, 3, 0.1, 0);
        Dataset a = SyntheticData.generate(s, 7, 1);
        Dataset b = SyntheticData.generate(s, 7, 2);
        Dataset again = SyntheticData.generate(s, 7, 1);

        float[] x = new float[4];
        float[] y = new float[4];
        a.copyFeatures(0, x, 0);
        again.copyFeatures(0, y, 0);
        assertThat(x).containsExactly(y);
        // with little noise, samples of one class sit near one centre in both sets
        float[] mean = classMean(a, 0);
        float[] meanB = classMean(b, 0);
        for (int j = 0; j < 4; j++) {
            assertThat((double) mean[j]).isCloseTo(meanB[j], within(0.2));
        }
    }

    private static float[] classMean(Dataset d, int c) {
        float[] sum = new float[d.featureCount()];
        float[] f = new float[d.featureCount()];
        int n = 0;
        for (int i = 0; i < d.size(); i++) {
            if (d.classOf(i) == c) {
                d.copyFeatures(i, f, 0);
                for (int j = 0; j < f.length; j++) {
                    sum[j] += f[j];
                }
                n++;
            }
        }
        for (int j = 0; j < sum.length; j++) {
            sum[j] /= n;
        }
        return sum;
    }
}
