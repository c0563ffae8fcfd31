package org.traindeck.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

    /** Samples/s per repeat for a model ("mlp" or "lenet"), or null when skipped. */
    static double[] run(String model, Path script, int threads) throws Exception {
        String python = python();
        if (python == null) {
            return null;
        }
        List<String> command = List.of(python, script.toString(), model, String.valueOf(EngineBench.EPOCHS),
                String.valueOf(EngineBench.REPEATS), String.valueOf(threads));
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

    static void compare(String model, String name, double trainDeck, Path script, int threads, Report report) throws Exception {
        if (!Files.exists(script)) {
            throw new IllegalStateException("missing " + script);
        }
        double[] torch = run(model, script, threads);
        if (torch == null) {
            report.add("CPU peer", name, String.format(java.util.Locale.ROOT, "%.0f samples/s", trainDeck),
                    "skipped: PyTorch is not installed (Debian: apt-get install python3-torch)", "—", "—");
            return;
        }
        Stats t = Stats.of(torch);
        report.add("CPU peer", name + ", " + threads + " thread(s)", String.format(java.util.Locale.ROOT, "%.0f samples/s", trainDeck),
                t.format("samples/s", 0) + " PyTorch", Report.ratio(trainDeck / t.median()), "—");
    }
}
