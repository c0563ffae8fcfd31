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
import org.traindeck.engine.api.devices.GpuInfo;
import org.traindeck.engine.events.GpuProcess;

/**
 * Runs nvidia-smi: found on a given PATH, started directly (no shell, so paths with spaces are safe), output read as
 * UTF-8 up to {@link #MAX_OUTPUT_BYTES}, and killed with every process it started when it does not answer within the
 * timeout or says too much.
 */
public final class NvidiaSmi {

    /** Far more than nvidia-smi prints for a machine full of GPUs and processes. */
    static final int MAX_OUTPUT_BYTES = 4 << 20;

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
        boolean windows =
                System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
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
        CompletableFuture<String> out = readAsync(process.getInputStream(), process);
        CompletableFuture<String> err = readAsync(process.getErrorStream(), process);
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                killTree(process);
                throw new NvidiaSmiException(
                        "nvidia-smi did not answer within " + timeout.toSeconds() + " s (a hung driver?)");
            }
            String stdout = out.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            String stderr = err.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (stdout == null || stderr == null) {
                throw new NvidiaSmiException("nvidia-smi printed more than " + MAX_OUTPUT_BYTES / (1 << 20)
                        + " MB: not nvidia-smi's output");
            }
            return new Output(process.exitValue(), stdout, stderr);
        } catch (InterruptedException e) {
            killTree(process);
            Thread.currentThread().interrupt();
            throw new NvidiaSmiException("interrupted while waiting for nvidia-smi", e);
        } catch (ExecutionException | TimeoutException e) {
            killTree(process);
            throw new NvidiaSmiException("could not read nvidia-smi's output: " + e.getMessage(), e);
        }
    }

    /** Ends the process and everything it started (a child would otherwise be orphaned, holding the pipes open). */
    static void killTree(Process process) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroyForcibly();
        children.forEach(ProcessHandle::destroyForcibly);
    }

    /** The stream's text, or null (and the process killed) when it says more than {@link #MAX_OUTPUT_BYTES}. */
    private static CompletableFuture<String> readAsync(InputStream in, Process process) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                byte[] bytes = in.readNBytes(MAX_OUTPUT_BYTES + 1);
                if (bytes.length > MAX_OUTPUT_BYTES) {
                    killTree(process);
                    return null;
                }
                return new String(bytes, StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
    }

    /** Queries every GPU's identity and current figures. */
    public List<GpuInfo> queryGpus() throws NvidiaSmiException {
        Output o = checked(
                run(List.of("--query-gpu=" + String.join(",", NvidiaSmiParser.GPU_FIELDS), "--format=csv,nounits")));
        return NvidiaSmiParser.parseGpus(o.stdout());
    }

    /** Which processes hold memory on which GPU. */
    public List<GpuProcess> queryComputeApps() throws NvidiaSmiException {
        Output o = checked(run(List.of(
                "--query-compute-apps=" + String.join(",", NvidiaSmiParser.APP_FIELDS), "--format=csv,nounits")));
        return NvidiaSmiParser.parseComputeApps(o.stdout());
    }

    /** The arguments of the long-running telemetry query that prints a row per GPU every {@code intervalMillis}. */
    public static List<String> streamArguments(long intervalMillis) {
        return List.of(
                "--query-gpu=index,memory.used,memory.total,utilization.gpu,temperature.gpu,power.draw",
                "--format=csv,nounits",
                "-lms",
                Long.toString(intervalMillis));
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
            throw new NvidiaSmiException(
                    "nvidia-smi failed (exit code " + o.exitCode() + ")" + (said.isEmpty() ? "" : ": " + said));
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
