package org.traindeck.engine.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.traindeck.engine.api.devices.DeviceInventory;
import org.traindeck.engine.api.devices.NcclReport;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.DeviceSelection;
import org.traindeck.engine.config.InvalidConfigException;
import org.traindeck.engine.config.LayerSpec;
import org.traindeck.engine.config.ModelConfig;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.ValidationResult;
import org.traindeck.engine.config.read.ConfigParser;
import org.traindeck.engine.data.DataLoader;
import org.traindeck.engine.devices.DeviceDiscovery;
import org.traindeck.engine.model.ModelCheck;
import org.traindeck.engine.model.ModelCompiler;
import org.traindeck.engine.model.ModelSummary;
import org.traindeck.engine.model.fit.DeviceMemory;
import org.traindeck.engine.model.fit.StageFits;
import org.traindeck.engine.model.kernels.KernelUse;
import org.traindeck.engine.parallel.NcclEnvironment;
import org.traindeck.engine.train.Nd4jRuntime;
import org.traindeck.engine.train.batch.PreparedStart;
import org.traindeck.engine.train.state.StartWork;

/**
 * Works out a config's {@link ModelOverview}, and what stops a run of it before anything runs (the model's problems
 * and the stages that do not fit the devices' memory), as {@code traindeck validate} and {@code train} do. The data's
 * shape comes from {@link DataShapes}, so following each edit of a model never reads its data again.
 */
final class ModelOverviews {

    private static final Pattern NODE_PATH = Pattern.compile("^model\\.layers\\[(\\d{1,9})]");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final DeviceDiscovery discovery;
    private final StartWork work;
    private final DataShapes shapes;

    ModelOverviews(DeviceDiscovery discovery) {
        this(discovery, StartWork.NONE);
    }

    /** @param work told of each data read and compilation, for a summary or a check as for a run */
    ModelOverviews(DeviceDiscovery discovery, StartWork work) {
        this.discovery = discovery;
        this.work = work;
        this.shapes = new DataShapes(work);
    }

    /** How many times data was read for a summary or a check. */
    int dataReads() {
        return shapes.reads();
    }

    ModelOverview of(String json, Path baseDir) {
        ValidationResult parsed = ConfigParser.parse(json, baseDir);
        if (!parsed.isValid()) {
            List<ModelOverview.Node> nodes = nodesOfText(json);
            return overview(nodes, names(nodes), false, 0, List.of(), parsed.problems(), null);
        }
        RunConfig config = parsed.config();
        NcclReport nccl = loadNd4j(config);
        ModelCheck.Checked checked = checkModel(parsed);
        List<ModelOverview.Node> declared = nodesOf(config.model());
        if (checked.summary() == null) {
            return overview(
                    declared,
                    names(declared),
                    false,
                    0,
                    List.of(),
                    checked.result().problems(),
                    nccl);
        }
        StageFits fits = StageFits.of(config, checked, memoryOf(config.devices()));
        List<ModelOverview.Node> nodes = new ArrayList<>();
        for (ModelSummary.Row r : checked.summary().rows()) {
            nodes.add(new ModelOverview.Node(r.name(), r.type(), r.inputs(), r.outputShape(), r.parameters(), null));
        }
        return overview(
                nodes,
                names(declared),
                true,
                checked.summary().parameters(),
                fits.lines(),
                checked.result().with(fits.problems()).problems(),
                nccl);
    }

    /** Every error that stops a run of {@code config}: the model's (as it compiles), then stages that do not fit. */
    List<ConfigProblem> refusals(ValidationResult parsed) {
        RunConfig config = parsed.config();
        loadNd4j(config);
        return refusalsOf(
                config,
                InitCheck.with(checkModel(new ValidationResult(config, List.of(), parsed.locations())), config));
    }

    /**
     * Reads a run's data and compiles its model against it, once, for the run to train on (neither is done again),
     * after refusing a run with every error that would stop it, as {@link #refusals} does.
     *
     * @param work told of the data read and the compilation
     * @throws InvalidConfigException every problem that stops the run, a line each
     */
    PreparedStart prepare(ValidationResult parsed, StartWork work) {
        RunConfig config = parsed.orThrow();
        loadNd4j(config);
        ValidationResult located = new ValidationResult(config, List.of(), parsed.locations());
        DataLoader.Loaded data;
        try {
            work.dataRead();
            data = DataLoader.load(config, config.data(), "data");
        } catch (InvalidConfigException e) {
            throw new InvalidConfigException(located.with(e.problems()).errors());
        }
        try {
            work.modelCompiled();
            ModelCheck.Checked checked = InitCheck.with(
                    ModelCheck.checkAgainst(located, data.train(), data.train().toString()), config);
            List<ConfigProblem> refused = refusalsOf(config, checked);
            if (!refused.isEmpty()) {
                throw new InvalidConfigException(refused);
            }
            return new PreparedStart(
                    config.data(), data, checked.conf(), checked.input(), KernelUse.forCurrentBackend());
        } catch (RuntimeException e) {
            data.close();
            throw e;
        }
    }

    private List<ConfigProblem> refusalsOf(RunConfig config, ModelCheck.Checked checked) {
        // a cluster's executors have their own memory, which this machine cannot see
        if (checked.result().errors().isEmpty() && config.parallel().cluster().isEmpty()) {
            return checked.result()
                    .with(StageFits.of(config, checked, memoryOf(config.devices()))
                            .problems())
                    .errors();
        }
        return checked.result().errors();
    }

    /** A parsed config, its model and the fit of each stage, for {@code traindeck validate}. */
    ConfigCheck check(ValidationResult parsed) {
        if (!parsed.isValid()) {
            return new ConfigCheck(parsed, null, null);
        }
        loadNd4j(parsed.config());
        ModelCheck.Checked checked = InitCheck.with(checkModel(parsed), parsed.config());
        if (!checked.result().isValid()) {
            return new ConfigCheck(checked.result(), checked.summary(), null);
        }
        Map<String, ModelSummary> stageSummaries = new LinkedHashMap<>();
        for (ModelCheck.StageNetwork n : checked.stageNetworks()) {
            stageSummaries.put(parsed.config().stages().get(n.stage()).name(), n.summary());
        }
        return new ConfigCheck(
                checked.result(),
                checked.summary(),
                StageFits.of(parsed.config(), checked, memoryOf(parsed.config().devices())),
                stageSummaries);
    }

    private ModelCheck.Checked checkModel(ValidationResult parsed) {
        DataShapes.Shape data;
        try {
            data = shapes.of(parsed.config());
        } catch (InvalidConfigException e) {
            return new ModelCheck.Checked(parsed.with(e.problems()), null);
        }
        work.modelCompiled();
        return ModelCheck.checkAgainst(parsed, data.standIn(), data.described(), (config, stage, at) -> {
            DataShapes.Shape shape = shapes.of(config, stage, at);
            return new ModelCheck.Data(shape.standIn(), shape.described());
        });
    }

    /**
     * Compiling a model loads ND4J, whose native libraries read the environment once: the config's NCCL settings go
     * in first, as a run's would, and ND4J is set up as for a run. Returns what became of the settings when this call
     * loaded it, else null.
     */
    private static NcclReport loadNd4j(RunConfig config) {
        synchronized (ModelOverviews.class) {
            if (Nd4jRuntime.isLoaded()) {
                return null;
            }
            NcclReport report = NcclEnvironment.apply(config.nccl(), false);
            Nd4jRuntime.init();
            return report;
        }
    }

    private List<DeviceMemory> memoryOf(DeviceSelection selection) {
        if (selection.kind() == DeviceSelection.Kind.CPU) {
            return DeviceMemory.of(selection, discovery.host(), List.of(), StageFits.offHeapLimit());
        }
        DeviceInventory inventory = discovery.discover();
        return DeviceMemory.of(selection, inventory.host(), inventory.gpus(), StageFits.offHeapLimit());
    }

    private static List<String> names(List<ModelOverview.Node> nodes) {
        return nodes.stream().map(ModelOverview.Node::name).toList();
    }

    /**
     * The table with each problem on its node where its path names one ("model.layers[4]...": the config's node 4,
     * called {@code configNames.get(4)}), and the others apart.
     */
    private static ModelOverview overview(
            List<ModelOverview.Node> nodes,
            List<String> configNames,
            boolean compiled,
            long parameters,
            List<String> fit,
            List<ConfigProblem> problems,
            NcclReport nccl) {
        List<ModelOverview.Node> marked = new ArrayList<>(nodes);
        List<ConfigProblem> elsewhere = new ArrayList<>();
        // errors first, so that a node shows its worst
        List<ConfigProblem> ordered =
                new ArrayList<>(problems.stream().filter(ConfigProblem::isError).toList());
        ordered.addAll(problems.stream().filter(p -> !p.isError()).toList());
        for (ConfigProblem p : ordered) {
            int row = rowOf(p, marked, configNames);
            if (row < 0) {
                elsewhere.add(p);
            } else if (marked.get(row).problem() == null) {
                ModelOverview.Node n = marked.get(row);
                marked.set(
                        row,
                        new ModelOverview.Node(
                                n.name(),
                                n.type(),
                                n.inputs(),
                                n.outputShape(),
                                n.parameters(),
                                p.message()
                                        + (p.hasPosition()
                                                ? " (line " + p.line() + ", column " + p.column() + ")"
                                                : "")));
            }
        }
        return new ModelOverview(marked, compiled, parameters, fit, elsewhere, nccl);
    }

    private static int rowOf(ConfigProblem p, List<ModelOverview.Node> nodes, List<String> configNames) {
        Matcher m = p.path() == null ? null : NODE_PATH.matcher(p.path());
        if (m == null || !m.find()) {
            return -1;
        }
        int index = Integer.parseInt(m.group(1));
        if (index >= configNames.size()) {
            return -1;
        }
        String name = configNames.get(index);
        for (int row = 0; row < nodes.size(); row++) {
            if (nodes.get(row).name().equals(name)) {
                return row;
            }
        }
        return -1;
    }

    /** A graph's nodes as the config gives them (the expansion of a vit or gpt), for a model that did not compile. */
    private static List<ModelOverview.Node> nodesOf(ModelConfig model) {
        ModelConfig.Graph graph = ModelCompiler.expanded(model);
        List<ModelOverview.Node> nodes = new ArrayList<>();
        if (graph == null) {
            return nodes;
        }
        List<LayerSpec> layers = graph.layers();
        for (int i = 0; i < layers.size(); i++) {
            LayerSpec s = layers.get(i);
            List<String> inputs = s.inputs() != null
                    ? s.inputs()
                    : List.of(i == 0 ? ModelCompiler.INPUT : layers.get(i - 1).name());
            nodes.add(new ModelOverview.Node(s.name(), s.type(), inputs, null, null, null));
        }
        return nodes;
    }

    /** The nodes a config's text lists, read as loosely as it is typed, for a config that does not validate. */
    private static List<ModelOverview.Node> nodesOfText(String json) {
        List<ModelOverview.Node> nodes = new ArrayList<>();
        JsonNode layers;
        try {
            layers = JSON.readTree(json).path("model").path("layers");
        } catch (IOException e) {
            return nodes; // not JSON yet: the problems say where
        }
        String previous = ModelCompiler.INPUT;
        for (int i = 0; i < layers.size(); i++) {
            JsonNode l = layers.get(i);
            String name = l.path("name").isTextual() ? l.path("name").asText() : "layers[" + i + "]";
            List<String> inputs = new ArrayList<>();
            if (l.path("inputs").isArray()) {
                l.path("inputs").forEach(in -> inputs.add(in.asText()));
            } else {
                inputs.add(previous);
            }
            nodes.add(new ModelOverview.Node(name, l.path("type").asText(""), inputs, null, null, null));
            previous = name;
        }
        return nodes;
    }
}
