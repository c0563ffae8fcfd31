package org.traindeck.engine.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.traindeck.engine.api.Configs;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.cli.commands.CheckpointsCommand;
import org.traindeck.engine.cli.commands.DevicesCommand;
import org.traindeck.engine.cli.commands.EvaluateCommand;
import org.traindeck.engine.cli.commands.ExportCommand;
import org.traindeck.engine.cli.commands.PredictCommand;
import org.traindeck.engine.cli.commands.QueueCommand;
import org.traindeck.engine.cli.commands.RunsCommand;
import org.traindeck.engine.cli.commands.SweepCommand;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.use.predict.Generation;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The CLI's commands for picocli: options and arguments, generated help, bash completion. Each command hands typed
 * values to its implementation; usage mistakes exit 2 with the command's usage, and expected failures (a bad config,
 * a folder in use, an unreadable file) print "error: ..." and exit 2, never a stack trace.
 */
final class Commands {

    private static final String EXIT_CODES =
            "%nExit codes: 0 success (or stopped with a checkpoint), 1 a run failed, 2 invalid "
                    + "input (or the run folder is in use), 3 trained but some files could not be written (a full disk), 130 / 143 "
                    + "stopped by Ctrl-C / SIGTERM after saving a checkpoint.%n%nThrough the ./traindeck script also: gui [CONFIG] "
                    + "(the window) and bench (the benchmarks). Bash completion: source <(traindeck generate-completion)";

    private Commands() {}

    static CommandLine commandLine(Main main) {
        CommandLine cli = new CommandLine(new Root(main));
        cli.addSubcommand("validate", new Validate(main));
        cli.addSubcommand("train", new Train(main));
        cli.addSubcommand("profile", new Profile(main));
        cli.addSubcommand("resume", new Resume(main));
        cli.addSubcommand("checkpoints", new Checkpoints(main));
        cli.addSubcommand("evaluate", new Evaluate(main));
        cli.addSubcommand("runs", new Runs(main));
        cli.addSubcommand("export", new Export(main));
        cli.addSubcommand("compare", new Compare(main));
        CommandLine queue = new CommandLine(new Queue());
        queue.addSubcommand("add", new QueueAdd(main));
        queue.addSubcommand("run", new QueueRun(main));
        queue.addSubcommand("list", new QueueList(main));
        queue.addSubcommand("remove", new QueueRemove(main));
        queue.addSubcommand("move", new QueueMove(main));
        cli.addSubcommand("queue", queue);
        cli.addSubcommand("sweep", new Sweep(main));
        cli.addSubcommand("devices", new Devices(main));
        cli.addSubcommand("predict", new Predict(main));
        cli.addSubcommand("generate-completion", new AutoComplete.GenerateCompletion());
        cli.registerConverter(DeviceSelection.class, text -> {
            DeviceSelection d = DeviceSelection.parse(text);
            if (d == null) {
                throw new CommandLine.TypeConversionException(
                        "'" + text + "' is not cpu, cpu:N (1 to 64), all, or GPU indices such as 0,1");
            }
            return d;
        });
        cli.setUsageHelpWidth(110);
        cli.setOut(new PrintWriter(main.out(), true));
        cli.setErr(new PrintWriter(main.err(), true));
        cli.setExecutionExceptionHandler((e, command, parsed) -> {
            if (e instanceof InvalidConfigException invalid) {
                invalid.problems().forEach(p -> main.err().println("error: " + p));
            } else if (e instanceof InvalidPathException path) {
                main.err().println("error: " + Configs.pathAdvice(path));
            } else if (e instanceof IOException) {
                main.err().println("error: " + e.getMessage());
            } else {
                throw e;
            }
            return Main.INVALID_INPUT;
        });
        return cli;
    }

    @Command(
            name = "traindeck",
            mixinStandardHelpOptions = true,
            versionProvider = Root.class,
            description = "Train neural networks on this machine's GPUs or CPU, and keep every run resumable.",
            footer = EXIT_CODES)
    static final class Root implements Callable<Integer>, CommandLine.IVersionProvider {
        private final Main main;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        Root(Main main) {
            this.main = main;
        }

        Root() {
            this(null);
        }

        @Override
        public Integer call() {
            spec.commandLine().usage(main.err());
            return Main.INVALID_INPUT;
        }

        @Override
        public String[] getVersion() {
            return new String[] {"TrainDeck " + Engine.version()};
        }
    }

    @Command(
            name = "validate",
            mixinStandardHelpOptions = true,
            description = "Check a run config and list every problem (path, line, column).")
    static final class Validate implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "CONFIG", description = "the run config (JSON)")
        String config;

        @Option(
                names = "--summary",
                description = "print the model's table: each node, its type, inputs, output shape and parameters")
        boolean summary;

        @Option(
                names = "--expand",
                description = "print the layer graph a vit or gpt shorthand stands for, to copy into a config")
        boolean expand;

        Validate(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return main.validate(config, summary, expand);
        }
    }

    @Command(
            name = "train",
            mixinStandardHelpOptions = true,
            description = "Train as the config says; metrics go to <outputDir>/<name>/.")
    static final class Train implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "CONFIG", description = "the run config (JSON)")
        String config;

        @Option(
                names = "--devices",
                paramLabel = "D",
                description = "instead of the config's: cpu, cpu:N (N CPU workers), all, or GPU indices such as 0,1")
        DeviceSelection devices;

        @Option(
                names = "--cluster",
                paramLabel = "spark://HOST:7077",
                description = "train on this Spark cluster's executors (see traindeck cluster master)")
        String cluster;

        @Option(
                names = "--executors",
                paramLabel = "N",
                description = "with --cluster: how many executors (default: the config's, else 2)")
        Integer executors;

        Train(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return main.train(config, devices, cluster, executors);
        }
    }

    @Command(
            name = "profile",
            mixinStandardHelpOptions = true,
            description =
                    "Train a few steps of the config's model on its data (first stage, one device, no run folder) and print "
                            + "where a step goes: each node's forward and backward, the optimizer update, the data and the rest.")
    static final class Profile implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "CONFIG", description = "the run config (JSON)")
        String config;

        @Option(
                names = "--steps",
                paramLabel = "N",
                defaultValue = "20",
                description = "timed steps, after " + Engine.PROFILE_WARMUP_STEPS
                        + " warm-up steps (default: ${DEFAULT-VALUE})")
        int steps;

        @Option(
                names = "--ops",
                description =
                        "also ND4J's time per native op over as many more steps (use OMP_NUM_THREADS=1 for exact op times)")
        boolean ops;

        Profile(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return main.profile(config, steps, ops);
        }
    }

    @Command(
            name = "resume",
            mixinStandardHelpOptions = true,
            description = "Continue a run from its latest valid checkpoint (or the one given).")
    static final class Resume implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "RUN_DIR|CHECKPOINT")
        String target;

        @Option(names = "--epochs", paramLabel = "N", description = "train the current stage for N epochs in all")
        Integer epochs;

        @Option(
                names = "--config",
                paramLabel = "FILE",
                description = "take safe changes from this config (learning rate, epochs, devices, ...)")
        Path config;

        @Option(
                names = "--devices",
                paramLabel = "D",
                description =
                        "cpu, cpu:N, all, or GPU indices such as 0,1 (a cluster run then continues on this machine)")
        DeviceSelection devices;

        @Option(names = "--cluster", paramLabel = "spark://HOST:7077", description = "continue on this Spark cluster")
        String cluster;

        @Option(
                names = "--from-another-run",
                description = "continue from a checkpoint that another run of the same name and model wrote")
        boolean fromAnotherRun;

        Resume(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            if (epochs != null && epochs < 1) {
                main.err().println("traindeck resume: --epochs needs a whole number of at least 1, not " + epochs);
                return Main.INVALID_INPUT;
            }
            return main.resume(target, epochs, config, devices, cluster, fromAnotherRun);
        }
    }

    @Command(
            name = "predict",
            mixinStandardHelpOptions = true,
            description = "A trained model's predictions on new inputs "
                    + "(.npy/.npz, image files or folders) to a .npy, a .csv of classes or a folder of PNG masks; for a text model, "
                    + "a continuation of --prompt. See docs/cli.md.")
    static final class Predict implements Callable<Integer> {
        private final Main main;

        @Parameters(index = "0", paramLabel = "RUN_DIR|CHECKPOINT")
        Path model;

        @Parameters(
                index = "1..*",
                paramLabel = "INPUT",
                arity = "0..*",
                description = "x.npy, data.npz[:name], images or folders of images")
        List<Path> inputs = List.of();

        @Option(
                names = "--out",
                paramLabel = "PATH",
                description = "predictions.npy (and .classes.npy), classes.csv, or a folder for PNG masks")
        Path out;

        @Option(names = "--ema", description = "use the stage's weight average instead of its last weights")
        boolean ema;

        @Option(names = "--force", description = "replace an existing --out")
        boolean force;

        @Option(
                names = "--overlay",
                description = "with a folder of masks: also each input with its mask over it (<name>.overlay.png)")
        boolean overlay;

        @Option(names = "--prompt", paramLabel = "TEXT", description = "a text model: continue this text")
        String prompt;

        @Option(
                names = "--tokens",
                paramLabel = "N",
                defaultValue = "200",
                description = "characters to generate (default: ${DEFAULT-VALUE})")
        int tokens;

        @Option(
                names = "--temperature",
                paramLabel = "T",
                defaultValue = "1.0",
                description = "0: always the most likely; 1: the model's distribution (default: ${DEFAULT-VALUE})")
        double temperature;

        @Option(
                names = "--top-k",
                paramLabel = "K",
                defaultValue = "0",
                description = "draw among the K most likely characters; 0: all (default: ${DEFAULT-VALUE})")
        int topK;

        @Option(
                names = "--seed",
                paramLabel = "S",
                defaultValue = "0",
                description =
                        "the same seed gives the same text, or the same generated samples (default: ${DEFAULT-VALUE})")
        long seed;

        @Option(
                names = "--layout",
                paramLabel = "LAYOUT",
                description = "NumPy images and volumes, in and out: channelsLast [N, H, W, C] or channelsFirst "
                        + "[N, C, H, W] (default: as each file's shape says; outputs as the inputs)")
        String layout;

        @Option(
                names = "--scale",
                paramLabel = "S",
                defaultValue = "1",
                description =
                        "divide every NumPy input value by S first, e.g. 255 for 0–255 values (default: ${DEFAULT-VALUE})")
        double scale;

        @Option(
                names = "--count",
                paramLabel = "N",
                defaultValue = "0",
                description = "an unconditional diffusion model: the samples to generate")
        int count;

        @Option(
                names = "--steps",
                paramLabel = "S",
                defaultValue = "50",
                description = "a diffusion model: the denoising steps (default: ${DEFAULT-VALUE})")
        int steps;

        @Option(
                names = "--sampler",
                paramLabel = "NAME",
                defaultValue = "ddim",
                description = "a diffusion model: ddim (deterministic, η = 0) or ddpm (default: ${DEFAULT-VALUE})")
        String sampler;

        @Option(
                names = "--all-stages",
                description =
                        "a diffusion cascade: also write each lower stage's samples beside --out (OUT-<stage>.npy)")
        boolean allStages;

        Predict(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return PredictCommand.predict(
                    main.engine(),
                    new PredictCommand.Options(
                            model,
                            inputs,
                            out,
                            ema,
                            force,
                            overlay,
                            prompt,
                            tokens,
                            temperature,
                            topK,
                            seed,
                            new Generation(count, steps, sampler, seed, allStages),
                            layout,
                            scale),
                    main.out(),
                    main.err());
        }
    }

    @Command(
            name = "checkpoints",
            mixinStandardHelpOptions = true,
            description = "List a run's checkpoints: stage, epoch, step, metric, valid or not.")
    static final class Checkpoints implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "RUN_DIR")
        Path runDir;

        Checkpoints(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return CheckpointsCommand.list(main.engine(), runDir, main.out(), main.err());
        }
    }

    @Command(
            name = "evaluate",
            mixinStandardHelpOptions = true,
            description = "A trained model's figures on test data (the config's "
                    + "data.test, else its validation data): printed, and written to the run folder's evaluation.json.")
    static final class Evaluate implements Callable<Integer> {
        private final Main main;

        @Parameters(
                paramLabel = "RUN_OR_CHECKPOINT",
                description = "a run folder (its best checkpoint, else its newest) or a .tdckpt file")
        Path target;

        @Option(
                names = "--data",
                paramLabel = "CONFIG_OR_SOURCE",
                description =
                        "a run config whose data.test to use, or one source as a .json file or JSON text, like data.train")
        String data;

        @Option(
                names = "--ema",
                description = "evaluate the stage's weight average (ema.bin) instead of its last weights")
        boolean ema;

        Evaluate(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return EvaluateCommand.evaluate(main.engine(), target, data, ema, main.out(), main.err());
        }
    }

    @Command(
            name = "export",
            mixinStandardHelpOptions = true,
            description = "Write a trained model's weights for PyTorch and "
                    + "NumPy: names such as fc1.weight in PyTorch's layouts, the graph as JSON (docs/export.md).")
    static final class Export implements Callable<Integer> {
        private final Main main;

        @Parameters(
                paramLabel = "RUN_OR_CHECKPOINT",
                description = "a run folder (its best checkpoint) or a .tdckpt file")
        Path source;

        @Option(
                names = "--format",
                paramLabel = "F",
                required = true,
                description = "safetensors or npz (npz: the graph in a .json beside it)")
        String format;

        @Option(
                names = "--out",
                paramLabel = "FILE",
                required = true,
                description = "the file to write, ending in .safetensors or .npz")
        Path out;

        @Option(names = "--ema", description = "the stage's weight average instead of its last weights")
        boolean ema;

        @Option(names = "--force", description = "replace an existing file")
        boolean force;

        Export(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return ExportCommand.run(main.engine(), source, format, ema, out, force, main.out(), main.err());
        }
    }

    @Command(
            name = "runs",
            mixinStandardHelpOptions = true,
            description =
                    "The runs in an output folder: status, steps, the monitored metric's best and last values, duration, start.")
    static final class Runs implements Callable<Integer> {
        private final Main main;

        @Parameters(
                paramLabel = "OUTPUT_DIR",
                arity = "0..1",
                defaultValue = "runs",
                description = "default: ${DEFAULT-VALUE}")
        Path dir;

        @Option(names = "--json", description = "as JSON, for scripts")
        boolean json;

        Runs(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return RunsCommand.runs(main.engine(), dir, json, main.out(), main.err());
        }
    }

    @Command(
            name = "compare",
            mixinStandardHelpOptions = true,
            description = "Final and best metrics side by side, and the config keys that differ; a RUN may also be"
                    + " TensorBoard logs another tool wrote (an events.out.tfevents.* file or a folder of them).")
    static final class Compare implements Callable<Integer> {
        private final Main main;

        @Parameters(
                paramLabel = "RUN",
                arity = "2..*",
                description = "two or more run folders or TensorBoard logs (a file or folder)")
        List<Path> runs;

        @Option(
                names = "--map",
                paramLabel = "TAG=METRIC",
                description = "read the logs' TAG as TrainDeck's METRIC (repeatable; over the defaults, such as"
                        + " loss=train/loss)")
        List<String> maps = new ArrayList<>();

        Compare(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            return RunsCommand.compare(main.engine(), runs, maps, main.out(), main.err());
        }
    }

    @Command(
            name = "queue",
            mixinStandardHelpOptions = true,
            description = "Queue runs and run them one after another (queue.json in the output folder).",
            subcommandsRepeatable = false)
    static final class Queue implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            throw new CommandLine.ParameterException(spec.commandLine(), "queue needs add, run, list, remove or move");
        }
    }

    @Command(
            name = "add",
            mixinStandardHelpOptions = true,
            description = "Queue copies of configs as they are now (every one checked first).")
    static final class QueueAdd implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "CONFIG", arity = "1..*")
        List<String> configs;

        @Option(
                names = "--output",
                paramLabel = "DIR",
                description = "the queue's folder (default: each config's outputDir)")
        String output;

        QueueAdd(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() throws IOException {
            return QueueCommand.add(main.engine(), configs, output, main.out(), main.err());
        }
    }

    @Command(
            name = "run",
            mixinStandardHelpOptions = true,
            description = "Run the queue; a failed run does not stop it; an interrupted run is resumed.")
    static final class QueueRun implements Callable<Integer> {
        private final Main main;

        @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
        String output;

        @Option(
                names = "--devices",
                paramLabel = "D",
                description = "every run on these devices: cpu, cpu:N, all, or 0,1")
        DeviceSelection devices;

        QueueRun(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() throws IOException {
            return QueueCommand.run(main.engine(), output, devices, main.stopLimit(), main.out(), main.err());
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "The queued runs and how each stands.")
    static final class QueueList implements Callable<Integer> {
        private final Main main;

        @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
        String output;

        QueueList(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() throws IOException {
            return QueueCommand.list(main.engine(), output, main.out());
        }
    }

    @Command(
            name = "remove",
            mixinStandardHelpOptions = true,
            description = "Take an entry out of the queue (not the one running); its run folder, if any, stays.")
    static final class QueueRemove implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "ID", description = "the entry's number, as queue list shows it")
        int id;

        @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
        String output;

        QueueRemove(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() throws IOException {
            return QueueCommand.remove(main.engine(), id, output, main.out());
        }
    }

    @Command(
            name = "move",
            mixinStandardHelpOptions = true,
            description = "Move a waiting entry to another place in the queue (waiting entries run in list order).")
    static final class QueueMove implements Callable<Integer> {
        private final Main main;

        @Parameters(index = "0", paramLabel = "ID", description = "the entry's number, as queue list shows it")
        int id;

        @Option(names = "--to", paramLabel = "N", required = true, description = "its new place, 1 = first")
        int position;

        @Option(names = "--output", paramLabel = "DIR", description = "the queue's folder (default: runs)")
        String output;

        QueueMove(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() throws IOException {
            return QueueCommand.move(main.engine(), id, position, output, main.out());
        }
    }

    @Command(
            name = "sweep",
            mixinStandardHelpOptions = true,
            description = "Run every trial of a sweep file through its queue, then print the results, best first.")
    static final class Sweep implements Callable<Integer> {
        private final Main main;

        @Parameters(paramLabel = "SWEEP")
        Path file;

        @Option(
                names = "--devices",
                paramLabel = "D",
                description = "every trial on these devices: cpu, cpu:N, all, or 0,1")
        DeviceSelection devices;

        Sweep(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() throws IOException {
            return SweepCommand.run(main.engine(), file, devices, main.stopLimit(), main.out(), main.err());
        }
    }

    @Command(
            name = "devices",
            mixinStandardHelpOptions = true,
            description = "The GPUs and the CPU with live memory, load and temperature; --watch streams them.")
    static final class Devices implements Callable<Integer> {
        private final Main main;

        @Option(names = "--json", description = "as JSON")
        boolean json;

        @Option(names = "--watch", description = "stream telemetry until Ctrl-C (or --samples)")
        boolean watch;

        @Option(
                names = "--interval",
                paramLabel = "MS",
                defaultValue = "1000",
                description = "between samples (at least 100)")
        long interval;

        @Option(names = "--samples", paramLabel = "N", description = "stop after N samples")
        Long samples;

        Devices(Main main) {
            this.main = main;
        }

        @Override
        public Integer call() {
            if (interval < 1 || samples != null && samples < 1) {
                main.err().println("traindeck devices: --interval and --samples need positive whole numbers");
                return Main.INVALID_INPUT;
            }
            return DevicesCommand.run(main.engine(), json, watch, interval, samples == null ? 0 : samples, main.out());
        }
    }
}
