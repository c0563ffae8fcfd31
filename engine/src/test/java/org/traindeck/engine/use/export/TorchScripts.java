package org.traindeck.engine.use.export;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the PyTorch scripts of src/test/resources/export (the ones docs/export.md shows) with /usr/bin/python3. */
final class TorchScripts {

    static final Path PYTHON = Path.of("/usr/bin/python3");
    private static String missing;
    private static boolean checked;

    private TorchScripts() {}

    /** Null when python3 and torch are there, else why not. */
    static synchronized String whyNotAvailable() {
        if (!checked) {
            checked = true;
            if (!Files.isExecutable(PYTHON)) {
                missing = PYTHON + " is not installed";
            } else {
                try {
                    Process p = new ProcessBuilder(PYTHON.toString(), "-c", "import torch, numpy")
                            .redirectErrorStream(true)
                            .start();
                    String out = new String(p.getInputStream().readAllBytes());
                    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                        missing = "torch or numpy is not installed for " + PYTHON + ": " + out.strip();
                    }
                } catch (IOException e) {
                    missing = "cannot run " + PYTHON + ": " + e.getMessage();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    missing = "interrupted";
                }
            }
        }
        return missing;
    }

    /** Runs {@code script} with {@code args} in {@code dir}, beside the peer modules it imports. */
    static void runWithPeers(Path dir, String script, String... args) throws IOException, InterruptedException {
        for (String name : List.of("traindeck_weights.py", "blocks.py", "vit.py", "gpt.py", script)) {
            try (InputStream in = TorchScripts.class.getResourceAsStream("/export/" + name)) {
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        List<String> command = new ArrayList<>(List.of(PYTHON.toString(), script));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(script + ".log").toFile());
        pb.environment().put("OMP_NUM_THREADS", "1");
        Process p = pb.start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(script + " did not finish in 10 minutes");
        }
        if (p.exitValue() != 0) {
            throw new AssertionError(script + " failed: " + Files.readString(dir.resolve(script + ".log")));
        }
    }

    /** Runs {@code script} in {@code dir} on {@code inputs}; returns the output file for each weights file. */
    static List<Path> run(Path dir, String script, Path inputs, List<Path> weights, Map<String, String> env)
            throws IOException, InterruptedException {
        for (String name : List.of("traindeck_weights.py", "blocks.py", script)) {
            try (InputStream in = TorchScripts.class.getResourceAsStream("/export/" + name)) {
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        List<String> command = new ArrayList<>(List.of(
                PYTHON.toString(),
                script,
                inputs.toString(),
                dir.resolve("torch-out").toString()));
        weights.forEach(w -> command.add(w.toString()));
        ProcessBuilder pb = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve(script + ".log").toFile());
        pb.environment().putAll(env);
        pb.environment().put("OMP_NUM_THREADS", "1");
        Process p = pb.start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(script + " did not finish in 10 minutes");
        }
        if (p.exitValue() != 0) {
            throw new AssertionError(script + " failed: " + Files.readString(dir.resolve(script + ".log")));
        }
        List<Path> outputs = new ArrayList<>();
        for (int i = 0; i < weights.size(); i++) {
            outputs.add(dir.resolve("torch-out" + i + ".npy"));
        }
        return outputs;
    }
}
