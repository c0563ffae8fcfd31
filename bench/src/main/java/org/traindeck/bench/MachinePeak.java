package org.traindeck.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * An estimate of this machine's peak float32 rate: cores × clock × FLOPs per cycle, read from /proc/cpuinfo. FLOPs per
 * cycle assume two FMA pipes, each as wide as the widest vector unit the flags name (AMD's AVX-512 through Zen 4 runs
 * on 256-bit pipes); the clock is the fastest "cpu MHz" listed, not a turbo the OS does not show. An estimate: it
 * says how far a row is from the hardware, not a measured ceiling.
 */
record MachinePeak(int cores, double ghz, int flopsPerCycle, String basis) {

    static MachinePeak read() {
        int cores = Runtime.getRuntime().availableProcessors();
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            double mhz = lines.stream()
                    .filter(l -> l.startsWith("cpu MHz"))
                    .mapToDouble(l -> Double.parseDouble(l.split(":")[1].trim()))
                    .max()
                    .orElse(Double.NaN);
            String vendor = lines.stream()
                    .filter(l -> l.startsWith("vendor_id"))
                    .map(l -> l.split(":")[1].trim())
                    .findFirst()
                    .orElse("");
            Set<String> flags = lines.stream()
                    .filter(l -> l.startsWith("flags"))
                    .findFirst()
                    .map(l -> Set.of(l.split(":")[1].trim().split("\\s+")))
                    .orElse(Set.of());
            int perCycle;
            String unit;
            if (flags.contains("avx512f") && !vendor.contains("AMD")) {
                perCycle = 64;
                unit = "AVX-512 + FMA, 2 × 16 lanes × 2";
            } else if (flags.contains("fma") && flags.contains("avx2")) {
                perCycle = 32;
                unit = (flags.contains("avx512f") ? "AVX-512 on 256-bit pipes" : "AVX2 + FMA") + ", 2 × 8 lanes × 2";
            } else if (flags.contains("avx")) {
                perCycle = 16;
                unit = "AVX, 8-lane add + multiply";
            } else {
                perCycle = 8;
                unit = "SSE, 4-lane add + multiply";
            }
            return new MachinePeak(cores, mhz / 1000, perCycle, unit);
        } catch (IOException | RuntimeException e) {
            return new MachinePeak(cores, Double.NaN, 0, "unknown: no /proc/cpuinfo");
        }
    }

    /** GFLOP/s of {@code threads} cores at peak (NaN when unknown). */
    double gflops(int threads) {
        return Math.min(threads, cores) * ghz * flopsPerCycle;
    }

    String describe() {
        return String.format(
                Locale.ROOT,
                "peak estimate %.0f GFLOP/s float32 = %d cores × %.2f GHz × %d FLOP/cycle (%s)",
                gflops(cores),
                cores,
                ghz,
                flopsPerCycle,
                basis);
    }
}
