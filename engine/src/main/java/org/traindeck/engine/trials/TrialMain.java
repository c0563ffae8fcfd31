package org.traindeck.engine.trials;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.checkpoint.CheckpointException;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.events.EventBus;
import org.traindeck.engine.events.RunEvent;
import org.traindeck.engine.sinks.JsonlSink;
import org.traindeck.engine.sinks.RunFolder;
import org.traindeck.engine.train.ResumeOptions;
import org.traindeck.engine.train.RunRequest;
import org.traindeck.engine.train.TrainingRun;

/**
 * One sweep trial in a process of its own ({@link TrialProcesses} starts it): {@code start RUN_DIR} trains the
 * config.json the sweep put in the (new) folder; {@code resume RUN_DIR [DEVICES]} continues the folder's run from its
 * latest checkpoint, as {@code traindeck resume} does. It speaks {@link TrialProtocol} on its standard output.
 */
public final class TrialMain {

    /** How long a trial stopped by a signal may take for its checkpoint (as {@code traindeck train} waits). */
    private static final long STOP_WAIT_SECONDS = 60;

    private final PrintStream protocol;
    private final Consumer<TrainingRun> prepared;
    private boolean reported;

    private TrialMain(PrintStream protocol, Consumer<TrainingRun> prepared) {
        this.protocol = protocol;
        this.prepared = prepared;
    }

    public static void main(String[] args) {
        System.exit(run(args, run -> {}));
    }

    /**
     * Runs the trial {@code args} name, speaking the protocol on standard output; {@code prepared} sees the run before
     * it starts (a test's entry point crashes the process from there). Returns the exit code.
     */
    public static int run(String[] args, Consumer<TrainingRun> prepared) {
        // the protocol has standard output to itself: anything else printed goes to standard error (the process log)
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        return new TrialMain(protocol, prepared).run(args);
    }

    /** The form of {@code devices} that {@link DeviceSelection#parse} reads back. */
    static String devicesArgument(DeviceSelection devices) {
        return devices.kind() == DeviceSelection.Kind.GPU_LIST
                ? String.join(
                        ",", devices.gpuIndices().stream().map(String::valueOf).toList())
                : devices.toString();
    }

    private int run(String[] args) {
        if (args.length < 2 || !(args[0].equals("start") || args[0].equals("resume"))) {
            say(TrialProtocol.NOT_STARTED, TrialProtocol.FAILED + " usage: TrialMain start|resume RUN_DIR [DEVICES]");
            return 2;
        }
        Path dir = Path.of(args[1]);
        TrainingRun run;
        try {
            if (args[0].equals("start")) {
                RunConfig config = ConfigParser.load(RunFolder.of(dir).config()).orThrow();
                run = TrainingRun.open(RunRequest.of(config).in(dir));
            } else {
                DeviceSelection devices = args.length > 2 ? DeviceSelection.parse(args[2]) : null;
                run = TrainingRun.resume(dir, new ResumeOptions(null, null, devices), DeviceDiscovery.system());
            }
        } catch (CheckpointException e) {
            say(TrialProtocol.NOT_STARTED, TrialProtocol.NO_CHECKPOINT + " " + message(e));
            return 3;
        } catch (IOException | RuntimeException e) {
            say(TrialProtocol.NOT_STARTED, TrialProtocol.FAILED + " " + message(e));
            return 3;
        }
        forwardEvents(run);
        prepared.accept(run);
        say(TrialProtocol.PREPARED, String.valueOf(run.currentStep()));
        Thread stopper = new Thread(() -> stopWhenAsked(run), "traindeck-trial-stdin");
        stopper.setDaemon(true);
        stopper.start();
        Thread onSignal = stopOnSignal(run);
        Runtime.getRuntime().addShutdownHook(onSignal);
        run.start();
        try {
            report(run.await());
            return 0;
        } catch (InterruptedException e) {
            return 4;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(onSignal);
            } catch (IllegalStateException shuttingDown) {
                // the hook reports the result
            }
        }
    }

    /** Every run event goes to the sweep on stdout as a protocol line. */
    private void forwardEvents(TrainingRun run) {
        run.subscribe(
                e -> {
                    if (e instanceof RunEvent r) {
                        try {
                            say(TrialProtocol.EVENT, JsonlSink.line(r));
                        } catch (IOException notWritable) {
                            // the event still reaches the run's own files
                        }
                    }
                },
                EventBus.Delivery.LOSSLESS);
    }

    /** Ctrl-C in a terminal reaches the sweep's whole process group, this process too: it stops with a checkpoint. */
    private Thread stopOnSignal(TrainingRun run) {
        return new Thread(
                () -> {
                    run.requestStop();
                    try {
                        report(run.completion().get(STOP_WAIT_SECONDS, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (TimeoutException e) {
                        // the status names the newest complete checkpoint, never the one still being written
                        report(run.giveUp("the trial did not stop within " + STOP_WAIT_SECONDS + " s"));
                    } catch (ExecutionException e) {
                        // no result: the sweep records the process as ended without one
                    }
                },
                "traindeck-trial-stop-on-signal");
    }

    private synchronized void report(RunResult result) {
        if (reported) {
            return;
        }
        reported = true;
        try {
            say(TrialProtocol.RESULT, TrialProtocol.encode(result));
        } catch (IOException e) {
            // a result that cannot be encoded reads as a process that ended without one
        }
    }

    /** Stops the run when the sweep says so, or when the sweep's process is gone (its end of the pipe closed). */
    private static void stopWhenAsked(TrainingRun run) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.trim().equals(TrialProtocol.STOP)) {
                    break;
                }
            }
        } catch (IOException gone) {
            // the same as its end
        }
        run.requestStop();
    }

    private synchronized void say(String kind, String body) {
        protocol.println(TrialProtocol.line(kind, body));
        protocol.flush();
    }

    private static String message(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
