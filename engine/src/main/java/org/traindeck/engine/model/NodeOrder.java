package org.traindeck.engine.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.traindeck.engine.config.LayerSpec;

/** The order a layer graph's nodes are compiled in: every node after the nodes it reads, in config order where free. */
final class NodeOrder {

    private NodeOrder() {}

    /** Node indices so that every node comes after its inputs (the config reader checked there is no cycle). */
    static List<Integer> of(List<LayerSpec> layers) {
        int n = layers.size();
        int[] waiting = new int[n];
        List<List<Integer>> takers = takers(layers, waiting);
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int i = 0; i < n; i++) {
            if (waiting[i] == 0) {
                ready.add(i);
            }
        }
        List<Integer> out = new ArrayList<>(n);
        while (!ready.isEmpty()) {
            int i = ready.poll();
            out.add(i);
            for (int t : takers.get(i)) {
                if (--waiting[t] == 0) {
                    ready.add(t);
                }
            }
        }
        if (out.size() < n) {
            throw new IllegalStateException("the layer graph has a cycle the config reader did not report");
        }
        return out;
    }

    /** The nodes that read each node; {@code waiting} gets how many layer nodes each one reads. */
    private static List<List<Integer>> takers(List<LayerSpec> layers, int[] waiting) {
        Map<String, Integer> index = new HashMap<>();
        List<List<Integer>> takers = new ArrayList<>();
        for (int i = 0; i < layers.size(); i++) {
            index.put(layers.get(i).name(), i);
            takers.add(new ArrayList<>());
        }
        for (int i = 0; i < layers.size(); i++) {
            List<String> reads = new ArrayList<>(inputsOf(layers, i));
            reads.addAll(layers.get(i).sideInputs().values());
            for (String in : reads) {
                Integer j = index.get(in);
                if (j != null) {
                    waiting[i]++;
                    takers.get(j).add(i);
                }
            }
        }
        return takers;
    }

    /** The nodes a layer reads: its own list, or the layer before it (the first reads the model's input). */
    static List<String> inputsOf(List<LayerSpec> layers, int i) {
        LayerSpec spec = layers.get(i);
        if (spec.inputs() != null) {
            return spec.inputs();
        }
        return List.of(i == 0 ? Heads.INPUT : layers.get(i - 1).name());
    }
}
