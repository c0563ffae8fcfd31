package org.traindeck.engine.devices;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs nvidia-smi: found on a given PATH, started directly (no shell, so paths with spaces are safe), output read as
 * UTF-8, and killed when it does not answer within the timeout.
 */
public final class NvidiaSmi {

    private final String pathEnv;
    private final Duration timeout;

    public NvidiaSmi(String pathEnv, Duration timeout) {
        this.pathEnv = pathEnv == null ? "" : pathEnv;
        this.timeout = timeout;
    }

    /** nvidia-smi on this process's PATH, with a 10 s timeout. */
    public static NvidiaSmi system() {
        return new NvidiaSmi(System.getenv("PATH"), Duration.ofSeconds(10));
    }

    /** The executable on PATH, if any. */
    public Optional<Path> locate() {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        String name = windows ? "nvidia-smi.exe" : "nvidia-smi";
        for (String dir : pathEnv.split(File.pathSeparator)) {
            if (dir.isBlank()) {
                continue;
            }
            Path candidate = Path.of(dir).resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    public record Output(int exitCode, String stdout, String stderr) {}

    public Output run(List<String> args) throws NvidiaSmiException {
        Path exe = locate().orElseThrow(() -> new NvidiaSmiException(
                "nvidia-smi was not found on PATH (no NVIDIA driver installed, or its tools are not on PATH)"));
        List<String> command = new ArrayList<>();
        command.add(exe.toString());
        command.addAll(args);
        Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new NvidiaSmiException("nvidia-smi could not be started: " + e.getMessage(), e);
        }
        CompletableFuture<String> out = readAsync(process.getInputStream());
        CompletableFuture<String> err = readAsync(process.getErrorStream());
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new NvidiaSmiException("nvidia-smi did not answer within " + timeout.toSeconds() + " s (a hung driver?)");
            }
            return new Output(process.exitValue(), out.get(timeout.toMillis(), TimeUnit.MILLISECONDS),
                    err.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new NvidiaSmiException("interrupted while waiting for nvidia-smi", e);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new NvidiaSmiException("could not read nvidia-smi's output: " + e.getMessage(), e);
        }
    }

    private static CompletableFuture<String> readAsync(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
    }

    /** Queries every GPU's identity and current figures. */
    public List<GpuInfo> queryGpus() throws NvidiaSmiException {
        Output o = checked(run(List.of("--query-gpu=" + String.join(",", NvidiaSmiParser.GPU_FIELDS), "--format=csv,nounits")));
        return NvidiaSmiParser.parseGpus(o.stdout());
    }

    /** Which processes hold memory on which GPU. */
    public List<GpuProcess> queryComputeApps() throws NvidiaSmiException {
        Output o = checked(run(List.of("--query-compute-apps=" + String.join(",", NvidiaSmiParser.APP_FIELDS), "--format=csv,nounits")));
        return NvidiaSmiParser.parseComputeApps(o.stdout());
    }

    /** The arguments of the long-running telemetry query that prints a row per GPU every {@code intervalMillis}. */
    public static List<String> streamArguments(long intervalMillis) {
        return List.of("--query-gpu=index,memory.used,memory.total,utilization.gpu,temperature.gpu,power.draw",
                "--format=csv,nounits", "-lms", Long.toString(intervalMillis));
    }

    /** Starts the telemetry stream; the caller reads and ends the process. */
    public Process startStream(long intervalMillis) throws NvidiaSmiException {
        Path exe = locate().orElseThrow(() -> new NvidiaSmiException("nvidia-smi was not found on PATH"));
        List<String> command = new ArrayList<>();
        command.add(exe.toString());
        command.addAll(streamArguments(intervalMillis));
        try {
            return new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new NvidiaSmiException("nvidia-smi could not be started: " + e.getMessage(), e);
        }
    }

    private static Output checked(Output o) throws NvidiaSmiException {
        if (o.exitCode() != 0) {
            String said = firstLine(o.stderr().isBlank() ? o.stdout() : o.stderr());
            throw new NvidiaSmiException("nvidia-smi failed (exit code " + o.exitCode() + ")" + (said.isEmpty() ? "" : ": " + said));
        }
        return o;
    }

    static String firstLine(String text) {
        for (String line : text.split("\\R")) {
            if (!line.isBlank()) {
                return line.strip();
            }
        }
        return "";
    }
}
