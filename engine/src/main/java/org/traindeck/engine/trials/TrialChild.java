package org.traindeck.engine.trials;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.sinks.RunFolder;

/**
 * One process of a trial, seen from the sweep: started, read line by line ({@link TrialProtocol}), asked to stop,
 * killed with everything it started. Its standard error (and any stray output) goes to {@code crash/trial-process.log}
 * in the run folder, its JVM crash log to {@code crash/hs_err_pid<PID>.log}.
 */
final class TrialChild {

    static final String CRASH_DIR = RunFolder.CRASH;
    static final String PROCESS_LOG = "trial-process.log";
    private static final Logger LOG = LoggerFactory.getLogger(TrialChild.class);

    /** How far a process got before it began training. */
    enum Start {
        PREPARED,
        NO_CHECKPOINT,
        FAILED,
        DIED
    }

    /**
     * How a process ended: with a result, or without one (crashed, killed): then the exit code and its crash log (null
     * when the JVM wrote none, as after SIGKILL).
     */
    record Ended(RunResult result, long pid, int exitCode, Path crashLog, String crash, long lastStep) {

        String describe() {
            int signal = exitCode > 128 ? exitCode - 128 : 0;
            String how = signal > 0 ? "killed by " + signalName(signal) + ", exit " + exitCode : "exit " + exitCode;
            return String.format(
                    Locale.ROOT,
                    "process %d ended without a result at step %d (%s); %s",
                    pid,
                    lastStep,
                    how,
                    crashLog == null
                            ? "no crash log (the JVM was killed before it could write one)"
                            : (crash.isEmpty() ? "" : crash + "; ") + "crash log: " + crashLog);
        }
    }

    private final Process process;
    private final BufferedReader out;
    private final Path crashDir;
    private String startMessage = "";
    private RunResult result;
    private volatile long lastStep;

    private TrialChild(Process process, Path crashDir) {
        this.process = process;
        this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        this.crashDir = crashDir;
    }

    static TrialChild launch(TrialLaunch launch, Path runDir, List<String> args) throws IOException {
        Path crashDir = Files.createDirectories(runDir.resolve(CRASH_DIR));
        Process p = new ProcessBuilder(launch.command(crashDir, args))
                .directory(runDir.toFile())
                .redirectError(Redirect.appendTo(crashDir.resolve(PROCESS_LOG).toFile()))
                .start();
        LOG.debug("trial process {}: {}", p.pid(), args);
        return new TrialChild(p, crashDir);
    }

    /** The step it continues from (0 for a new run); the step of its latest event once it trains. */
    long step() {
        return lastStep;
    }

    long pid() {
        return process.pid();
    }

    /** Reads until the process is ready to train (or says why it is not, or ends). */
    Start awaitStart() throws IOException {
        String rest;
        while ((rest = nextMessage()) != null) {
            if (rest.startsWith(TrialProtocol.PREPARED + " ")) {
                lastStep = Long.parseLong(
                        rest.substring(TrialProtocol.PREPARED.length() + 1).trim());
                return Start.PREPARED;
            }
            if (rest.startsWith(TrialProtocol.NOT_STARTED + " ")) {
                String why = rest.substring(TrialProtocol.NOT_STARTED.length() + 1);
                boolean noCheckpoint = why.startsWith(TrialProtocol.NO_CHECKPOINT + " ");
                startMessage = why.substring(why.indexOf(' ') + 1);
                awaitExit();
                return noCheckpoint ? Start.NO_CHECKPOINT : Start.FAILED;
            }
        }
        return Start.DIED;
    }

    /** Why it did not start (its own words, or how its process ended). */
    String startMessage() {
        return startMessage.isEmpty() ? ended().describe() : startMessage;
    }

    /** Hands each event line to {@code events} until the process ends; then how it ended. */
    Ended follow(Consumer<String> events) throws IOException {
        String rest;
        while ((rest = nextMessage()) != null) {
            if (rest.startsWith(TrialProtocol.EVENT + " ")) {
                events.accept(rest.substring(TrialProtocol.EVENT.length() + 1));
            } else if (rest.startsWith(TrialProtocol.RESULT + " ")) {
                result = TrialProtocol.decode(rest.substring(TrialProtocol.RESULT.length() + 1));
            }
        }
        return ended();
    }

    void step(long step) {
        lastStep = step;
    }

    private Ended ended() {
        int code = awaitExit();
        Path log = crashDir.resolve("hs_err_pid" + process.pid() + ".log");
        boolean written = Files.isRegularFile(log);
        return new Ended(result, process.pid(), code, written ? log : null, written ? summary(log) : "", lastStep);
    }

    /** The signal and the frame it hit, from the head of a JVM crash log ("SIGSEGV in [libnd4jcpu.so+0x1d2e4f] ..."). */
    static String summary(Path crashLog) {
        try (Stream<String> lines = Files.lines(crashLog, StandardCharsets.ISO_8859_1)) {
            List<String> head = lines.limit(40).toList();
            String signal = head.stream()
                    .filter(l -> l.matches("#\\s+(SIG\\w+|EXCEPTION_\\w+).*"))
                    .map(l -> l.replaceFirst("#\\s+", "").split(" ")[0])
                    .findFirst()
                    .orElse("");
            int problem = head.indexOf("# Problematic frame:");
            String frame = problem >= 0 && problem + 1 < head.size()
                    ? head.get(problem + 1).replaceFirst("#\\s+\\w\\s+", "").trim()
                    : "";
            return (signal + (frame.isEmpty() ? "" : " in " + frame)).trim();
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    private int awaitExit() {
        boolean interrupted = false;
        while (true) {
            try {
                int code = process.waitFor();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
                return code;
            } catch (InterruptedException e) {
                // the process ends on its own or by kill(): its exit code is what is waited for
                interrupted = true;
            }
        }
    }

    /** Asks the process to stop after its step, with a checkpoint. */
    void stop() {
        try {
            OutputStream in = process.getOutputStream();
            in.write((TrialProtocol.STOP + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException gone) {
            // it has ended already
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Ends the process and anything it started, at once (SIGKILL). */
    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** The next protocol message (without its prefix), logging any other line; null when the process closed its output. */
    private String nextMessage() throws IOException {
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(TrialProtocol.PREFIX)) {
                return line.substring(TrialProtocol.PREFIX.length());
            }
            stray(line);
        }
        return null;
    }

    private void stray(String line) {
        try {
            Files.writeString(
                    crashDir.resolve(PROCESS_LOG),
                    line + System.lineSeparator(),
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            // the folder was removed (a run that failed before its first step): nothing to keep
        }
    }

    private static String signalName(int signal) {
        return switch (signal) {
            case 6 -> "SIGABRT";
            case 9 -> "SIGKILL";
            case 11 -> "SIGSEGV";
            case 15 -> "SIGTERM";
            default -> "signal " + signal;
        };
    }
}
