package org.traindeck.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The CPU peer: the same MLP and LeNet-style CNN, data shapes, batch and optimizer, trained by PyTorch on the CPU
 * with the same number of threads. Skipped, with the reason, when PyTorch is not installed (Debian: python3-torch).
 */
final class PeerBench {

    private PeerBench() {
    }

    static String python() {
        for (String candidate : List.of("/usr/bin/python3", "python3")) {
            try {
                Process p = new ProcessBuilder(candidate, "-c", "import torch").redirectErrorStream(true).start();
                if (p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
            } catch (Exception e) {
                // try the next
            }
        }
        return null;
    }

    /** Samples/s per repeat for a model ("mlp", "lenet" or "lenet-large"), run by {@code python}. */
    static double[] run(String python, String model, Path script, int repeats, int threads) throws Exception {
        List<String> command = List.of(python, script.toString(), model, String.valueOf(EngineBench.EPOCHS),
                String.valueOf(repeats), String.valueOf(threads));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<Double> rates = new ArrayList<>();
        StringBuilder all = new StringBuilder();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
            String line;
            while ((line = in.readLine()) != null) {
                all.append(line).append('\n');
                if (line.startsWith("samples_per_s ")) {
                    rates.add(Double.parseDouble(line.substring(14).trim()));
                }
            }
        }
        p.waitFor(600, TimeUnit.SECONDS);
        if (rates.isEmpty()) {
            throw new IllegalStateException("the PyTorch script reported nothing:\n" + all);
        }
        return rates.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * PyTorch and TrainDeck alternated (peer, TrainDeck, peer, …), each a fresh run; the ratio is the median of the
     * pairwise ratios (min–max).
     */
    static void compare(String model, EngineBench.Workload w, Path out, int pairs, Path script, int threads, String target,
                        Report report) throws Exception {
        if (!Files.exists(script)) {
            throw new IllegalStateException("missing " + script);
        }
        String python = python();
        if (python == null) {
            report.add("CPU peer", w.name(), "—", "skipped: PyTorch is not installed (Debian: apt-get install python3-torch)", "—", target);
            return;
        }
        double[] torch = new double[pairs];
        double[] td = new double[pairs];
        double[] ratios = new double[pairs];
        for (int i = 0; i < pairs; i++) {
            torch[i] = run(python, model, script, 1, threads)[0];
            td[i] = EngineBench.measure(w, out.resolve(model + i), "cpu").samplesPerSecond();
            ratios[i] = td[i] / torch[i];
        }
        Stats r = Stats.of(ratios);
        report.add("CPU peer", w.name() + ", " + threads + " thread(s)", Stats.of(td).format("samples/s", 0),
                Stats.of(torch).format("samples/s", 0) + " PyTorch " + torchVersion(python),
                String.format(Locale.ROOT, "%.2f× (%.2f–%.2f, %d pairs)", r.median(), r.min(), r.max(), pairs), target);
    }

    private static String torchVersion(String python) {
        try {
            Process p = new ProcessBuilder(python, "-c", "import torch; print(torch.__version__)").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 ? v : "";
        } catch (Exception e) {
            return "";
        }
    }
}
