package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every dtype × byte order × memory order that NumPy wrote, checked value by value against the fixtures' formula. */
class NpyArrayDTypeTest {

    static List<String> dtypeFixtures() throws IOException {
        try (Stream<Path> files = Files.list(NpyFixtures.dir())) {
            List<String> names = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.matches("[fiub][1248]_(le|be|na)_[cf]\\.npy"))
                    .sorted()
                    .toList();
            assertThat(names).hasSize(42);
            return names;
        }
    }

    /** Windows of 24 bytes put boundaries inside every sample (15 values) of every dtype. */
    static Stream<Object[]> dtypeFixturesAndWindows() throws IOException {
        return dtypeFixtures().stream()
                .flatMap(n -> Stream.of(
                        new Object[] {n, NpyArray.DEFAULT_WINDOW_BYTES}, new Object[] {n, 24L}, new Object[] {n, 1L}));
    }

    @ParameterizedTest(name = "{0} windows of {1} bytes")
    @MethodSource("dtypeFixturesAndWindows")
    void everyValueMatchesTheFormula(String name, long windowBytes) throws IOException {
        char kind = name.charAt(0);
        int bytes = name.charAt(1) - '0';
        try (NpyArray a = NpyArray.open(NpyFixtures.file(name), windowBytes)) {
            assertThat(a.shape()).containsExactly(4, 3, 5);
            assertThat(a.dtype().bytes()).isEqualTo(bytes);
            assertThat(a.dtype().descr(a.header().order()).substring(1)).isEqualTo(name.substring(0, 2));
            assertThat(a.header().fortranOrder()).isEqualTo(name.endsWith("_f.npy"));
            if (bytes > 1) {
                assertThat(a.header().order())
                        .isEqualTo(name.contains("_be_") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
                assertThat(a.describe()).endsWith(name.contains("_be_") ? "big-endian" : "little-endian");
            }
            assertThat(a.describe())
                    .startsWith(a.dtype().numpyName() + " [4, 3, 5] "
                            + (name.endsWith("_f.npy") ? "Fortran order" : "C order"));
            assertThat(a.sampleCount()).isEqualTo(4);
            assertThat(a.sampleLength()).isEqualTo(15);

            float[] one = new float[17];
            for (int i = 0; i < 4; i++) {
                a.readSample(i, one, 2);
                for (int p = 0; p < 15; p++) {
                    assertThat((double) one[2 + p])
                            .as("%s sample %d position %d", name, i, p)
                            .isEqualTo(NpyFixtures.expected(kind, i * 15L + p));
                }
            }
            float[] all = new float[60];
            a.readSamples(0, 4, all, 0);
            float[] middle = new float[30];
            a.readSamples(1, 2, middle, 0);
            for (int c = 0; c < 60; c++) {
                assertThat((double) all[c]).as("%s element %d", name, c).isEqualTo(NpyFixtures.expected(kind, c));
            }
            for (int c = 0; c < 30; c++) {
                assertThat((double) middle[c]).isEqualTo(NpyFixtures.expected(kind, c + 15));
            }
            if (a.dtype().isIntegral()) {
                long[] longs = new long[16];
                long min = Long.MAX_VALUE;
                long max = Long.MIN_VALUE;
                for (int i = 0; i < 4; i++) {
                    a.readSampleLongs(i, longs, 1);
                    for (int p = 0; p < 15; p++) {
                        long want = (long) NpyFixtures.expected(kind, i * 15L + p);
                        assertThat(longs[1 + p]).isEqualTo(want);
                        min = Math.min(min, want);
                        max = Math.max(max, want);
                    }
                }
                assertThat(a.minMaxLong()).containsExactly(min, max);
                assertThat(a.firstNonFinite()).isNull();
            } else {
                assertThat(a.firstNonFinite()).isNull();
            }
        }
    }
}
