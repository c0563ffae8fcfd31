package org.traindeck.engine.weights;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.traindeck.engine.config.InitConfig;
import org.traindeck.engine.use.export.NamingTable;

/**
 * A model's {@code init}: the file's tensors matched to the network's under the export's names (after {@code map}),
 * checked, and written into the network's parameters. A node takes its tensors all or none: one of them missing or of
 * another shape leaves the whole node at its initialisation, which {@code strict} refuses.
 */
public final class StartingWeights {

    private StartingWeights() {}

    /**
     * What loading would do, without changing the network.
     *
     * @throws WeightsException for a file that cannot be read, a map that gives two tensors one name, or (strict) a
     *                          tensor the model needs that the file lacks or has in another shape
     */
    public static InitReport check(InitConfig init, Path baseDir, ComputationGraph net) {
        return run(init, baseDir, net, false);
    }

    /** Loads the weights into {@code net}; as {@link #check}, then the values. */
    public static InitReport load(InitConfig init, Path baseDir, ComputationGraph net) {
        return run(init, baseDir, net, true);
    }

    private static InitReport run(InitConfig init, Path baseDir, ComputationGraph net, boolean write) {
        TensorPlacement.Placement placement = TensorPlacement.of(net, NamingTable.standard());
        try (TensorFile file = open(baseDir.resolve(init.from()).normalize())) {
            Map<String, String> fileNameOf = rename(file, init.map());
            Map<String, List<TensorPlacement.Slot>> byNode = new LinkedHashMap<>();
            placement
                    .slots()
                    .values()
                    .forEach(s -> byNode.computeIfAbsent(s.node(), n -> new ArrayList<>())
                            .add(s));
            InitReport report = match(file, fileNameOf, byNode, placement.unnamed());
            if (init.strict() && !report.keptNodes().isEmpty()) {
                throw new WeightsException(strictMessage(report));
            }
            if (write) {
                write(net, file, fileNameOf, byNode, Set.copyOf(report.keptNodes()));
            }
            return report;
        }
    }

    /** Each node's tensors against the file's: all of a node's loaded, or the node kept (and why). */
    private static InitReport match(
            TensorFile file,
            Map<String, String> fileNameOf,
            Map<String, List<TensorPlacement.Slot>> byNode,
            Map<String, String> unnamed) {
        List<String> loaded = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        List<String> misfits = new ArrayList<>();
        Set<String> kept = new LinkedHashSet<>(unnamed.keySet());
        Set<String> used = new LinkedHashSet<>();
        long values = 0;
        for (Map.Entry<String, List<TensorPlacement.Slot>> node : byNode.entrySet()) {
            boolean fits = true;
            for (TensorPlacement.Slot s : node.getValue()) {
                String from = fileNameOf.get(s.tensor());
                String misfit = from == null ? null : misfit(file.entries().get(from), s);
                if (from == null) {
                    missing.add(s.tensor() + " " + s.shapeText());
                } else if (misfit != null) {
                    misfits.add(misfit);
                }
                fits &= from != null && misfit == null;
            }
            if (!fits) {
                kept.add(node.getKey());
                continue;
            }
            for (TensorPlacement.Slot s : node.getValue()) {
                String from = fileNameOf.get(s.tensor());
                used.add(from);
                loaded.add(s.tensor() + " " + s.shapeText() + (from.equals(s.tensor()) ? "" : " ← " + from));
                values += s.keyOf().length;
            }
        }
        Map<String, String> modelNameOf = new LinkedHashMap<>();
        fileNameOf.forEach((model, inFile) -> modelNameOf.put(inFile, model));
        List<String> unused = new ArrayList<>();
        for (TensorFile.Entry e : file.entries().values()) {
            if (!used.contains(e.name())) {
                String as = modelNameOf.get(e.name());
                unused.add(e.name() + " " + e.shapeText() + (as.equals(e.name()) ? "" : " (as " + as + ")"));
            }
        }
        unnamed.forEach((node, why) -> misfits.add("node " + node + ": " + why));
        return new InitReport(file.source(), loaded, unused, missing, misfits, List.copyOf(kept), values);
    }

    private static String strictMessage(InitReport r) {
        StringBuilder s = new StringBuilder(r.source() + " does not fit the model");
        if (!r.misfits().isEmpty()) {
            s.append(": other shape: ").append(String.join("; ", r.misfits()));
        }
        if (!r.missing().isEmpty()) {
            s.append(r.misfits().isEmpty() ? ": " : "; ")
                    .append("missing from the file: ")
                    .append(String.join(", ", r.missing()));
        }
        return s.append(". Rename the file's tensors with \"map\", or set \"strict\": false to keep ")
                .append(String.join(", ", r.keptNodes()))
                .append(" at their initialisation (a new head)")
                .toString();
    }

    /** Why the file's tensor cannot fill the slot (shape or type), or null when it can. */
    private static String misfit(TensorFile.Entry e, TensorPlacement.Slot s) {
        String fileName = e.name();
        String named = s.tensor() + (fileName.equals(s.tensor()) ? "" : " (" + fileName + " in the file)");
        if (!Arrays.equals(e.shape(), s.shape())) {
            return named + ": " + e.shapeText() + " in the file, " + s.shapeText() + " in the model";
        }
        if (!e.floating()) {
            return named + ": " + e.dtype() + " in the file, not a floating-point type";
        }
        return null;
    }

    /** The file's name for each model tensor name it provides: renamed by the first pattern that matches it whole. */
    private static Map<String, String> rename(TensorFile file, Map<String, String> map) {
        Map<Pattern, String> patterns = new LinkedHashMap<>();
        map.forEach((regex, name) -> patterns.put(Pattern.compile(regex), name));
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : file.entries().keySet()) {
            String as = name;
            for (Map.Entry<Pattern, String> p : patterns.entrySet()) {
                Matcher m = p.getKey().matcher(name);
                if (m.matches()) {
                    try {
                        as = m.replaceFirst(p.getValue());
                    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                        throw new WeightsException("map: \"" + p.getKey() + "\": \"" + p.getValue() + "\" on " + name
                                + ": " + e.getMessage());
                    }
                    break;
                }
            }
            String before = out.put(as, name);
            if (before != null) {
                throw new WeightsException("map: the file's tensors " + before + " and " + name + " both become " + as
                        + ": a tensor can be loaded from one of them only");
            }
        }
        return out;
    }

    private static void write(
            ComputationGraph net,
            TensorFile file,
            Map<String, String> fileNameOf,
            Map<String, List<TensorPlacement.Slot>> byNode,
            Set<String> kept) {
        for (Map.Entry<String, List<TensorPlacement.Slot>> node : byNode.entrySet()) {
            if (kept.contains(node.getKey())) {
                continue;
            }
            Map<String, INDArray> params =
                    net.getVertex(node.getKey()).getLayer().paramTable();
            Map<String, float[]> flat = TensorPlacement.flat(params);
            for (TensorPlacement.Slot s : node.getValue()) {
                float[] values = file.read(fileNameOf.get(s.tensor()));
                for (int j = 0; j < values.length; j++) {
                    float v = s.logStd() ? (float) (0.5 * Math.log10(values[j])) : values[j];
                    flat.get(s.keys().get(s.keyOf()[j]))[s.indexOf()[j]] = v;
                }
            }
            flat.forEach((key, values) -> {
                INDArray p = params.get(key);
                p.assign(Nd4j.createFromArray(values).reshape('c', p.shape()).castTo(p.dataType()));
            });
        }
    }

    private static TensorFile open(Path from) {
        if (!Files.exists(from)) {
            throw new WeightsException(from + " does not exist");
        }
        String name = from.getFileName() == null ? "" : from.getFileName().toString();
        if (name.endsWith(".safetensors")) {
            return SafetensorsFile.open(from);
        }
        if (name.endsWith(".npz")) {
            return NpzTensorFile.open(from);
        }
        if (Files.isDirectory(from) || name.endsWith(".tdckpt")) {
            RunWeights reader = ServiceLoader.load(RunWeights.class)
                    .findFirst()
                    .orElseThrow(() -> new WeightsException(
                            "cannot read the run " + from + ": no reader of TrainDeck checkpoints is installed"));
            return new MemoryTensors(from.toString(), reader.read(from));
        }
        throw new WeightsException(
                from + " is neither a .safetensors nor an .npz file, nor a run folder or a .tdckpt" + " checkpoint");
    }
}
