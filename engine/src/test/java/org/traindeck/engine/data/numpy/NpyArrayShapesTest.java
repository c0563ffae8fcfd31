package org.traindeck.engine.data.numpy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Ranks 0, 1, 2 and 4, empty arrays, format versions 2.0 and 3.0, integer extremes and the non-finite scan. */
class NpyArrayShapesTest {

    @Test
    void zeroDimensionalArrayIsOneSampleOfOneValue() throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("scalar_f8.npy"))) {
            assertThat(a.shape()).isEmpty();
            assertThat(a.sampleCount()).isEqualTo(1);
            assertThat(a.sampleLength()).isEqualTo(1);
            float[] out = new float[1];
            a.readSample(0, out, 0);
            assertThat(out[0]).isEqualTo(3.5f);
            assertThat(a.describe()).isEqualTo("float64 [] C order, little-endian");
        }
    }

    @Test
    void oneDimensionalArrayIsScalarSamples() throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("vector_i4.npy"))) {
            assertThat(a.sampleCount()).isEqualTo(10);
            assertThat(a.sampleLength()).isEqualTo(1);
            long[] out = new long[10];
            for (int i = 0; i < 10; i++) {
                a.readSampleLongs(i, out, i);
                assertThat(out[i]).isEqualTo((long) NpyFixtures.expected('i', i));
            }
            float[] batch = new float[3];
            a.readSamples(7, 3, batch, 0);
            assertThat(batch)
                    .containsExactly((float) NpyFixtures.expected('i', 7), (float) NpyFixtures.expected('i', 8), (float)
                            NpyFixtures.expected('i', 9));
            assertThatThrownBy(() -> a.readSamples(8, 3, new float[3], 0))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("vector_i4.npy");
        }
    }

    @Test
    void emptyArrayHasNoSamples() throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("empty_f4.npy"))) {
            assertThat(a.sampleCount()).isZero();
            assertThat(a.sampleLength()).isEqualTo(3);
            assertThat(a.firstNonFinite()).isNull();
            a.readSamples(0, 0, new float[0], 0);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1L << 30, 4, 12, 28})
    void rankFourFortranOrderGathersEverySampleInCOrder(long windowBytes) throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("rank4_f4_f.npy"), windowBytes)) {
            assertThat(a.shape()).containsExactly(3, 2, 4, 5);
            float[] out = new float[120];
            a.readSamples(0, 3, out, 0);
            for (int c = 0; c < 120; c++) {
                assertThat((double) out[c]).isEqualTo(NpyFixtures.expected('f', c));
            }
            a.readSample(2, out, 0);
            for (int p = 0; p < 40; p++) {
                assertThat((double) out[p]).isEqualTo(NpyFixtures.expected('f', 80 + p));
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"v2_f4.npy", "v3_f4.npy"})
    void formatVersionsTwoAndThree(String name) throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file(name))) {
            assertThat(a.shape()).containsExactly(4, 3, 5);
            float[] out = new float[60];
            a.readSamples(0, 4, out, 0);
            for (int c = 0; c < 60; c++) {
                assertThat((double) out[c]).isEqualTo(NpyFixtures.expected('f', c));
            }
        }
    }

    @Test
    void integerExtremesReadExactly() throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("extremes_i8.npy"))) {
            long[] out = new long[4];
            a.readSamplesLongs(0, 4, out, 0);
            assertThat(out).containsExactly(Long.MIN_VALUE, -1, 0, Long.MAX_VALUE);
            assertThat(a.minMaxLong()).containsExactly(Long.MIN_VALUE, Long.MAX_VALUE);
        }
        try (NpyArray a = NpyArray.open(NpyFixtures.file("extremes_u4.npy"))) {
            assertThat(a.minMaxLong()).containsExactly(0, 4294967295L);
            float[] f = new float[3];
            a.readSamples(0, 3, f, 0);
            assertThat(f).containsExactly(0f, 1f, 4294967295f);
        }
    }

    @Test
    void uint64BeyondLongIsRefusedAsLongButReadsAsFloat() throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("too_large_u8.npy"))) {
            assertThatThrownBy(a::minMaxLong)
                    .isInstanceOf(ArithmeticException.class)
                    .hasMessageContaining("too_large_u8.npy")
                    .hasMessageContaining("[1, 1]");
            assertThatThrownBy(() -> a.readSampleLongs(1, new long[2], 0)).isInstanceOf(ArithmeticException.class);
            long[] ok = new long[2];
            a.readSampleLongs(0, ok, 0);
            assertThat(ok).containsExactly(1, 2);
            float[] f = new float[2];
            a.readSample(1, f, 0);
            assertThat(f[1]).isEqualTo(9.223372036854775813E18f);
        }
    }

    @Test
    void longReadsOfFloatArraysAreRefused() throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("f4_le_c.npy"))) {
            assertThatThrownBy(a::minMaxLong)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("float32");
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "nonfinite_f2_c.npy",
                "nonfinite_f4_c.npy",
                "nonfinite_f8_c.npy",
                "nonfinite_f2_f.npy",
                "nonfinite_f4_f.npy",
                "nonfinite_f8_f.npy"
            })
    void firstNonFiniteIsReportedInCOrderWithItsSampleAndIndex(String name) throws IOException {
        for (long window : new long[] {NpyArray.DEFAULT_WINDOW_BYTES, 24}) {
            try (NpyArray a = NpyArray.open(NpyFixtures.file(name), window)) {
                NonFinite bad = a.firstNonFinite();
                assertThat(bad).isNotNull();
                assertThat(bad.sample()).isEqualTo(17);
                assertThat(bad.index()).containsExactly(17, 3, 4);
                assertThat(bad.kind()).isEqualTo("NaN");
                assertThat(bad.count()).isEqualTo(3);
                assertThat(bad.describe()).startsWith(NpyFixtures.file(name) + ": NaN at sample 17, index [17, 3, 4]");
                float[] out = new float[20];
                a.readSample(18, out, 0);
                assertThat(out[1]).isEqualTo(Float.POSITIVE_INFINITY);
                a.readSample(19, out, 0);
                assertThat(out[0]).isEqualTo(Float.NEGATIVE_INFINITY);
            }
        }
    }

    @Test
    void finiteArrayHasNoNonFinite() throws IOException {
        try (NpyArray a = NpyArray.open(NpyFixtures.file("finite_f4.npy"))) {
            assertThat(a.firstNonFinite()).isNull();
        }
    }

    @Test
    void halfPrecisionConversionIsExactForEveryValue() {
        // every non-NaN half against the widening that Java 20+ has built in, re-derived here from the bit layout
        for (int bits = 0; bits < 0x10000; bits++) {
            float f = ElementConverter.halfToFloat((short) bits);
            int exponent = (bits >> 10) & 0x1f;
            int mantissa = bits & 0x3ff;
            double sign = (bits & 0x8000) != 0 ? -1 : 1;
            if (exponent == 0x1f) {
                assertThat(mantissa == 0 ? Float.isInfinite(f) : Float.isNaN(f)).isTrue();
            } else {
                double want = exponent == 0
                        ? sign * mantissa * Math.pow(2, -24)
                        : sign * (1 + mantissa / 1024.0) * Math.pow(2, exponent - 15);
                assertThat((double) f).as("half 0x%04x", bits).isEqualTo(want);
            }
        }
    }

    @Test
    void readingAfterCloseIsRefused() throws IOException {
        NpyArray a = NpyArray.open(NpyFixtures.file("f4_le_c.npy"));
        a.close();
        assertThatThrownBy(() -> a.readSample(0, new float[15], 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
