package org.traindeck.engine.model.graph;

import java.util.List;
import java.util.Map;
import org.nd4j.linalg.activations.Activation;
import org.traindeck.engine.model.kernels.KernelUse;

/**
 * A node's options as the config holds them (bounded and defaulted by the schema), read by type. A size written as
 * one number stands for every dimension.
 */
public record NodeOptions(String type, Map<String, Object> values, KernelUse kernels) {

    /** The option by which a node picks who computes it ({@link KernelUse}). */
    public static final String KERNEL = "kernel";

    public NodeOptions(String type, Map<String, Object> values) {
        this(type, values, KernelUse.OWN);
    }

    /** Whether this node is computed by TrainDeck's kernel: the model's kernels allow it and the node does not opt out. */
    public boolean ownKernel() {
        return kernels.kernelFor(has(KERNEL) ? string(KERNEL) : null);
    }

    public boolean has(String key) {
        return values.containsKey(key);
    }

    public int integer(String key) {
        return ((Number) require(key)).intValue();
    }

    public double number(String key) {
        return ((Number) require(key)).doubleValue();
    }

    public boolean bool(String key) {
        return (Boolean) require(key);
    }

    public String string(String key) {
        return (String) require(key);
    }

    /** A size of {@code dims} dimensions: one number repeated, or the list as written. */
    @SuppressWarnings("unchecked")
    public int[] size(String key, int dims) {
        Object v = require(key);
        int[] out = new int[dims];
        for (int i = 0; i < dims; i++) {
            out[i] = v instanceof Number n ? n.intValue() : ((List<Integer>) v).get(i);
        }
        return out;
    }

    public int[] size(String key, int dims, int[] fallback) {
        return has(key) ? size(key, dims) : fallback;
    }

    @SuppressWarnings("unchecked")
    public List<Integer> intList(String key) {
        return (List<Integer>) require(key);
    }

    public Activation activation(String key) {
        return Activations.of(string(key));
    }

    private Object require(String key) {
        Object v = values.get(key);
        if (v == null) {
            // the schema gives every option a default or makes it required: a missing one is a schema/kind mismatch
            throw new IllegalStateException(
                    "layer type " + type + " has no option " + key + " (schema and layer class disagree)");
        }
        return v;
    }
}
