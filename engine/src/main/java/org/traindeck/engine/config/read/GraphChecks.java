package org.traindeck.engine.config.read;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.traindeck.engine.config.JsonLocations;
import org.traindeck.engine.config.LayerSpec;

/**
 * What makes a list of layers a graph: unique names, inputs that exist (a node or one of the data's inputs), no cycle,
 * every node's output used.
 */
final class GraphChecks {

    private final Problems problems;
    private final String at;
    private final List<String> dataInputs;

    /** @param dataInputs the names the data's inputs go by ("input", or a numpy source's names) */
    GraphChecks(Problems problems, String layersPath, List<String> dataInputs) {
        this.problems = problems;
        this.at = layersPath;
        this.dataInputs = dataInputs;
    }

    /** Whether the layers form a graph the compiler can walk (every problem is reported). */
    boolean check(List<LayerSpec> layers) {
        Map<String, Integer> byName = GraphReader.indexByName(layers);
        Set<String> duplicated = duplicatedNames(layers, byName);
        boolean ok = duplicated.isEmpty();
        boolean[] used = new boolean[layers.size()];
        for (int i = 0; i < layers.size(); i++) {
            ok &= checkInputs(layers, i, byName, duplicated, used);
        }
        if (!ok) {
            return false;
        }
        String cycle = findCycle(layers, byName);
        if (cycle != null) {
            problems.error(at, "the layers form a cycle (" + cycle + "): a graph's outputs cannot feed back into it");
            return false;
        }
        for (int i = 0; i < layers.size() - 1; i++) {
            if (!used[i]) {
                problems.error(
                        path(i),
                        "the output of \"" + layers.get(i).name()
                                + "\" is not used: no layer takes it, and only the last" + " layer (\""
                                + layers.get(layers.size() - 1).name()
                                + "\") feeds the head. Remove it or name it in a later layer's \"inputs\"");
                ok = false;
            }
        }
        return ok;
    }

    /** The names more than one layer has, each reported at the later layer. */
    private Set<String> duplicatedNames(List<LayerSpec> layers, Map<String, Integer> byName) {
        Set<String> seen = new HashSet<>();
        Set<String> duplicated = new HashSet<>();
        for (int i = 0; i < layers.size(); i++) {
            if (!seen.add(layers.get(i).name())) {
                duplicated.add(layers.get(i).name());
                problems.error(
                        JsonLocations.child(path(i), "name"),
                        "another layer (layers[" + byName.get(layers.get(i).name()) + "]) is already named \""
                                + layers.get(i).name() + "\"");
            }
        }
        return duplicated;
    }

    /** Whether every input of layer {@code i} is a data input or another layer, marked in {@code used}. */
    private boolean checkInputs(
            List<LayerSpec> layers, int i, Map<String, Integer> byName, Set<String> duplicated, boolean[] used) {
        boolean ok = true;
        List<String> inputs = GraphReader.allInputs(layers, i);
        List<String> sides = new ArrayList<>(layers.get(i).sideInputs().keySet());
        int plain = inputs.size() - sides.size();
        for (int k = 0; k < inputs.size(); k++) {
            String in = inputs.get(k);
            String where = k >= plain
                    ? JsonLocations.child(path(i), sides.get(k - plain))
                    : layers.get(i).inputs() == null
                            ? path(i)
                            : JsonLocations.element(JsonLocations.child(path(i), "inputs"), k);
            if (in.equals(layers.get(i).name()) && duplicated.contains(in)) {
                continue; // the other layer of that name is meant: the duplicate name is the error, said above
            } else if (in.equals(layers.get(i).name())) {
                problems.error(where, "the layer \"" + in + "\" takes its own output: a graph cannot loop");
                ok = false;
            } else if (dataInputs.contains(in)) {
                continue;
            } else if (!byName.containsKey(in)) {
                problems.error(where, unknown(in, k < plain && layers.get(i).inputs() == null, byName.keySet()));
                ok = false;
            } else {
                used[byName.get(in)] = true;
            }
        }
        return ok;
    }

    private String unknown(String name, boolean byDefault, Collection<String> layerNames) {
        boolean single = dataInputs.equals(List.of(GraphReader.INPUT));
        if (byDefault && !single) {
            return "the first layer reads the data as \"input\", but the data's inputs are named " + dataInputs
                    + ": say which it reads, e.g. \"inputs\": \"" + dataInputs.get(0) + "\"";
        }
        List<String> known = new ArrayList<>(layerNames);
        known.addAll(dataInputs);
        return (single ? "no layer is named \"" : "no layer or data input is named \"") + name + "\""
                + Suggestions.didYouMean(name, known)
                + (single ? "" : " (the data's inputs: " + String.join(", ", dataInputs) + ")");
    }

    private String path(int i) {
        return JsonLocations.element(at, i);
    }

    /** A cycle as "a → b → a", or null; iterative, so a deep graph cannot overflow the stack. */
    private static String findCycle(List<LayerSpec> layers, Map<String, Integer> byName) {
        int n = layers.size();
        int[] state = new int[n]; // 0 new, 1 on the path, 2 done
        int[] parent = new int[n];
        for (int start = 0; start < n; start++) {
            if (state[start] != 0) {
                continue;
            }
            Deque<int[]> stack = new ArrayDeque<>();
            stack.push(new int[] {start, 0});
            state[start] = 1;
            parent[start] = -1;
            while (!stack.isEmpty()) {
                int[] top = stack.peek();
                List<String> inputs = GraphReader.allInputs(layers, top[0]);
                if (top[1] == inputs.size()) {
                    state[top[0]] = 2;
                    stack.pop();
                    continue;
                }
                String in = inputs.get(top[1]++);
                Integer next = byName.get(in);
                if (next == null) {
                    continue;
                }
                if (state[next] == 1) {
                    List<String> names = new ArrayList<>();
                    names.add(layers.get(next).name());
                    for (int c = top[0]; c != next && c >= 0; c = parent[c]) {
                        names.add(layers.get(c).name());
                    }
                    names.add(layers.get(next).name());
                    Collections.reverse(names);
                    return String.join(" → ", names);
                }
                if (state[next] == 0) {
                    state[next] = 1;
                    parent[next] = top[0];
                    stack.push(new int[] {next, 0});
                }
            }
        }
        return null;
    }
}
