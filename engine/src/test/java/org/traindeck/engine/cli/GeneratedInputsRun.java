package org.traindeck.engine.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the generated hostile inputs through the CLI as a user would (validate, then train what validates) and prints
 * one CRASH line per input that ended in anything but a result or a located refusal; run in a JVM of its own with a
 * small heap by {@link GeneratedInputsTest}. Arguments: seed, graph cases, graph trainings, NumPy cases, a folder.
 */
public final class GeneratedInputsRun {

    private GeneratedInputsRun() {}

    public static void main(String[] args) throws Exception {
        long seed = Long.parseLong(args[0]);
        int graphCases = Integer.parseInt(args[1]);
        int trainings = Integer.parseInt(args[2]);
        int npyCases = Integer.parseInt(args[3]);
        Path dir = Path.of(args[4]);
        GeneratedInputs inputs = new GeneratedInputs(seed);
        List<String> data = GeneratedInputs.dataSections(dir);
        List<String> crashes = new ArrayList<>();
        int valid = 0;
        int trained = 0;
        int n = 0;
        for (int[] pair : inputs.pairs(graphCases)) {
            String section = data.get(n++ % data.size());
            Path config = dir.resolve("graph-" + n + ".json");
            Files.writeString(config, inputs.graphConfig(pair[0], pair[1], section));
            String what = inputs.typeName(pair[0]) + " -> " + inputs.typeName(pair[1]) + " on " + section.strip();
            MainAccess.Result r = run(what + " (validate)", crashes, "validate", "--summary", config.toString());
            if (r != null && r.exitCode() == Main.OK) {
                valid++;
                if (trained < trainings) {
                    trained++;
                    run(what + " (train)", crashes, "train", config.toString());
                }
            }
        }
        for (int i = 0; i < npyCases; i++) {
            Path npy = dir.resolve("x" + i + ".npy");
            Files.write(npy, inputs.npy());
            Path config = dir.resolve("npy-" + i + ".json");
            Files.writeString(config, """
                    {"name": "npy", "outputDir": "out", "model": {"type": "mlp", "hidden": [4]},
                     "data": {"train": {"type": "numpy", "inputs": "%s", "task": "reconstruction"}},
                     "stages": [{"epochs": 1, "batchSize": 2}], "checkpoint": {"keepBestPerStage": false}}
                    """.formatted(npy.getFileName()));
            String header = new String(Files.readAllBytes(npy), java.nio.charset.StandardCharsets.ISO_8859_1)
                    .lines()
                    .findFirst()
                    .orElse("");
            run("npy " + header.strip() + " (train)", crashes, "train", config.toString());
        }
        crashes.forEach(c -> System.out.println("CRASH " + c));
        System.out.println("cases " + n + " graphs (" + valid + " valid, " + trained + " trained), " + npyCases
                + " NumPy files; " + crashes.size() + " crash(es)");
    }

    /** Runs the CLI; a crash is an exception out of it, a stack trace in its output, or an exit code it never gives. */
    private static MainAccess.Result run(String what, List<String> crashes, String... args) {
        try {
            MainAccess.Result r = MainAccess.run(args);
            String all = r.stdout() + r.stderr();
            boolean trace = all.contains("\tat ")
                    || all.contains("Exception")
                    || all.contains("Error:") && !all.contains("error:");
            boolean unexplained =
                    r.exitCode() == Main.RUN_FAILED || r.exitCode() != Main.OK && r.exitCode() != Main.INVALID_INPUT;
            boolean unlocated = r.exitCode() == Main.INVALID_INPUT && !all.contains("error:");
            if (trace || unexplained || unlocated) {
                crashes.add(what + ": exit " + r.exitCode() + ": " + oneLine(all));
            }
            return r;
        } catch (Throwable t) {
            crashes.add(what + ": " + t);
            return null;
        }
    }

    private static String oneLine(String text) {
        String s = text.replace('\n', ' ').replace('\t', ' ');
        return s.length() > 400 ? s.substring(0, 400) + "…" : s;
    }
}
