package org.traindeck.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bytedeco.javacpp.Loader;

/**
 * The CPU peer: the same MLP and LeNet-style CNN, data shapes, batch and optimizer, trained by PyTorch on the CPU
 * with the same number of threads. Skipped, with the reason, when PyTorch is not installed (Debian: python3-torch).
 * Debian's PyTorch does its matrix products through whatever libblas.so.3 is installed; the reference BLAS (the
 * default without libopenblas0) made the ViT peer 5.5× slower, so the peer runs with the OpenBLAS that ND4J ships
 * preloaded, as if libopenblas0 were installed, whenever that library is found.
 */
final class PeerBench {

    private PeerBench() {}

    static String python() {
        for (String candidate : List.of("/usr/bin/python3", "python3")) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import torch")
                        .redirectErrorStream(true)
                        .start();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
            } catch (Exception e) {
                // try the next
            }
        }
        return null;
    }

    /** What one run of the peer script printed: the model's parameter count and samples/s per repeat. */
    record PeerRun(long parameters, double[] samplesPerSecond) {}

    /**
     * Samples/s per repeat for a model ("mlp", "lenet" or "lenet-large") on {@code samples} examples (0: the script's
     * default), run by {@code python}.
     */
    static double[] run(String python, String model, Path script, int repeats, int threads, int samples)
            throws Exception {
        return run(
                        python,
                        script,
                        List.of(
                                model,
                                String.valueOf(EngineBench.EPOCHS),
                                String.valueOf(repeats),
                                TorchSetting.threads(threads).arg(),
                                "0",
                                "-",
                                String.valueOf(samples)),
                        TorchSetting.threads(threads))
                .samplesPerSecond();
    }

    /**
     * Runs the peer script with {@code args} (see its usage; the SETTING among them is {@code setting}'s) and the
     * setting's OpenBLAS threads.
     */
    static PeerRun run(String python, Path script, List<String> args, TorchSetting setting) throws Exception {
        List<Double> rates = new ArrayList<>();
        long parameters = -1;
        List<String> lines = lines(python, script, args, setting);
        for (String line : lines) {
            if (line.startsWith("samples_per_s ")) {
                rates.add(Double.parseDouble(line.substring(14).trim()));
            } else if (line.startsWith("parameters ")) {
                parameters = Long.parseLong(line.substring(11).trim());
            }
        }
        if (rates.isEmpty()) {
            throw new IllegalStateException("the PyTorch script reported nothing:\n" + String.join("\n", lines));
        }
        return new PeerRun(
                parameters, rates.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** The global batch's loss after each of a model's first {@code steps} steps in {@code setting}. */
    static double[] trace(String python, Path script, String model, int steps, TorchSetting setting) throws Exception {
        List<String> args = List.of("trace", model, String.valueOf(steps), setting.arg());
        List<String> lines = lines(python, script, args, setting);
        double[] losses = lines.stream()
                .filter(l -> l.startsWith("loss "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .toArray();
        if (losses.length != steps) {
            throw new IllegalStateException("the PyTorch trace (" + setting.describe() + ") reported " + losses.length
                    + " of " + steps + " losses:\n" + String.join("\n", lines));
        }
        return losses;
    }

    /** What the script printed (stdout and stderr), once it has ended. */
    private static List<String> lines(String python, Path script, List<String> args, TorchSetting setting)
            throws Exception {
        List<String> command = new ArrayList<>(List.of(python, script.toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Path blas = openBlas();
        if (blas != null) {
            builder.environment().put("LD_PRELOAD", blas.toString());
            builder.environment().put("OPENBLAS_NUM_THREADS", String.valueOf(setting.openBlasThreads()));
        }
        Process p = builder.start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        }
        p.waitFor(600, TimeUnit.SECONDS);
        return lines;
    }

    private static Path openBlas;
    private static boolean openBlasLooked;

    /** ND4J's own OpenBLAS (javacpp's cache, unpacked when ND4J loaded), or null off Linux or when it is not there. */
    static synchronized Path openBlas() {
        if (!openBlasLooked) {
            openBlasLooked = true;
            if (System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
                try (Stream<Path> files = Files.walk(Loader.getCacheDir().toPath())) {
                    openBlas = files.filter(f -> f.getFileName().toString().equals("libopenblas.so.0"))
                            .min(Comparator.comparing(f -> f.toString().contains("org/bytedeco/openblas") ? 0 : 1))
                            .orElse(null);
                } catch (IOException e) {
                    openBlas = null;
                }
            }
        }
        return openBlas;
    }

    /** How the peer's row names it: version and BLAS. */
    static String describe(String python) {
        return "PyTorch " + torchVersion(python) + (openBlas() != null ? " + OpenBLAS" : " (its own libblas)");
    }

    /**
     * PyTorch and TrainDeck alternated (peer, TrainDeck, peer, …), each a fresh run; the ratio is the median of the
     * pairwise ratios (min–max).
     */
    static void compare(
            String model,
            EngineBench.Workload w,
            double flopsPerSample,
            Path out,
            int pairs,
            Path script,
            int threads,
            String target,
            Report report)
            throws Exception {
        if (!Files.exists(script)) {
            throw new IllegalStateException("missing " + script);
        }
        String python = python();
        if (python == null) {
            report.add(
                    "CPU peer",
                    w.name(),
                    "—",
                    "skipped: PyTorch is not installed (Debian: apt-get install python3-torch)",
                    "—",
                    target);
            return;
        }
        double[] torch = new double[pairs];
        double[] td = new double[pairs];
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            torch[i] = run(python, model, script, 1, threads, w.samples())[0];
            td[i] = EngineBench.measure(w, out.resolve(model + i), "cpu").samplesPerSecond();
            ratios[i] = td[i] / torch[i];
        }
        Stats r = Stats.of(ratios);
        MachinePeak peak = MachinePeak.read();
        report.add(
                "CPU peer",
                w.name() + ", " + threads + " thread(s)",
                Stats.of(td).format("samples/s", 0) + SmallNetFlops.rate(td, flopsPerSample, threads, peak),
                Stats.of(torch).format("samples/s", 0) + SmallNetFlops.rate(torch, flopsPerSample, threads, peak) + " "
                        + describe(python),
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), pairs),
                target);
    }

    /**
     * As {@link #compare}, with a second TrainDeck variant of the same network ({@code reference}: DL4J's layers where
     * {@code w} has TrainDeck's kernels) in each round: peer, w, reference. Rows for both against the peer and the
     * pairwise ratio w / reference.
     */
    static void compareWithReference(
            String model,
            EngineBench.Workload w,
            EngineBench.Workload reference,
            double flopsPerSample,
            Path out,
            int pairs,
            Path script,
            int threads,
            String target,
            Report report)
            throws Exception {
        String python = python();
        if (python == null) {
            report.add(
                    "CPU peer",
                    w.name(),
                    "—",
                    "skipped: PyTorch is not installed (Debian: apt-get install python3-torch)",
                    "—",
                    target);
            return;
        }
        double[] torch = new double[pairs];
        double[] td = new double[pairs];
        double[] ref = new double[pairs];
        double[] ratios = new double[pairs];
        double[] refRatios = new double[pairs];
        double[] speedups = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            torch[i] = run(python, model, script, 1, threads, w.samples())[0];
            td[i] = EngineBench.measure(w, out.resolve(model + i), "cpu").samplesPerSecond();
            ref[i] = EngineBench.measure(reference, out.resolve(model + "-reference" + i), "cpu")
                    .samplesPerSecond();
            ratios[i] = td[i] / torch[i];
            refRatios[i] = ref[i] / torch[i];
            speedups[i] = td[i] / ref[i];
        }
        MachinePeak peak = MachinePeak.read();
        String peer = Stats.of(torch).format("samples/s", 0) + SmallNetFlops.rate(torch, flopsPerSample, threads, peak)
                + " " + describe(python);
        report.add(
                "CPU peer",
                w.name() + ", " + threads + " thread(s)",
                Stats.of(td).format("samples/s", 0) + SmallNetFlops.rate(td, flopsPerSample, threads, peak),
                peer,
                ratio(ratios, pairs),
                target);
        report.add(
                "CPU peer",
                reference.name() + ", " + threads + " thread(s)",
                Stats.of(ref).format("samples/s", 0) + SmallNetFlops.rate(ref, flopsPerSample, threads, peak),
                peer,
                ratio(refRatios, pairs),
                "(the kernel's before)");
        report.add("CPU peer", w.name() + ": kernel / DL4J's layer", "—", "—", ratio(speedups, pairs), "> 1×");
    }

    private static String ratio(double[] ratios, int pairs) {
        Stats r = Stats.of(ratios);
        return String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), pairs);
    }

    private static final Map<String, String> VERSIONS = new HashMap<>();

    static synchronized String torchVersion(String python) {
        return VERSIONS.computeIfAbsent(python, p -> {
            try {
                Process proc = new ProcessBuilder(p, "-c", "import torch; print(torch.__version__)")
                        .redirectErrorStream(true)
                        .start();
                String v = new String(proc.getInputStream().readAllBytes()).strip();
                return proc.waitFor(60, TimeUnit.SECONDS) && proc.exitValue() == 0 ? v : "";
            } catch (Exception e) {
                return "";
            }
        });
    }
}
