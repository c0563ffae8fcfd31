package org.traindeck.engine.model.fit;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.inputs.InputType;
import org.deeplearning4j.nn.conf.layers.Layer;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.kernels.embedding.PatchEmbedding3DKernel;
import org.traindeck.engine.model.kernels.embedding.PatchEmbeddingKernel;
import org.traindeck.engine.model.kernels.embedding.Unpatch3DKernel;
import org.traindeck.engine.model.kernels.transformer.BlockInputsVertex;
import org.traindeck.engine.model.kernels.transformer.CrossAttention;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;
import org.traindeck.engine.model.layers.SelfAttention;
import org.traindeck.engine.model.nodes.RecomputeChains;
import org.traindeck.engine.model.nodes.RecomputingLayer;

/**
 * A model's activations per example counted from its layer shapes, for the models DL4J's memory report cannot see
 * into: {@code outputs}, the values DL4J holds per layer (each kept for backprop, its gradient, a working copy: counted
 * {@link FitEstimate#FALLBACK_ACTIVATION_FACTOR} times), and {@code buffers}, the kernels' own buffers, which hold a
 * layer's intermediates and their gradients already (counted once). Sizes come from the classes that allocate them.
 */
record ShapeCount(long outputs, long buffers) {

    /** Floats per example, each output counted {@code factor} times. */
    long floats(int factor) {
        return factor * outputs + buffers;
    }

    static ShapeCount of(ComputationGraphConfiguration conf, ModelInput input) {
        Map<String, InputType> types = conf.clone().getLayerActivationTypes(input.types());
        Set<String> unkept = new HashSet<>(RecomputeChains.links(conf).values());
        Tally tally = new Tally(types);
        for (InputType in : input.types()) {
            tally.outputs += in.arrayElementsPerExample();
        }
        for (Map.Entry<String, InputType> e : types.entrySet()) {
            GraphVertex v = conf.getVertices().get(e.getKey());
            if (unkept.contains(e.getKey())) {
                continue; // its consumer computes it again: nothing of it is kept
            }
            if (v instanceof LayerVertex l) {
                tally.layer(e.getKey(), l.getLayerConf().getLayer(), e.getValue());
            } else {
                tally.outputs += e.getValue().arrayElementsPerExample();
            }
        }
        return new ShapeCount(tally.outputs, tally.buffers + tally.sharedBlockBuffers + tally.sharedPatchBuffers);
    }

    /**
     * The running count. The recomputing nodes of a thread share one set of buffers per kernel family (blocks, 3D
     * patches): the largest set counts, once.
     */
    private static final class Tally {
        private final Map<String, InputType> types;
        private long outputs;
        private long buffers;
        private long sharedBlockBuffers;
        private long sharedPatchBuffers;

        Tally(Map<String, InputType> types) {
            this.types = types;
        }

        void layer(String node, Layer layer, InputType type) {
            long output = type.arrayElementsPerExample();
            long steps = type instanceof InputType.InputTypeRecurrent r ? r.getTimeSeriesLength() : 0;
            if (layer instanceof TransformerBlock b && steps > 0) {
                outputs += output;
                buffers += b.keptFloatsPerExample(steps)
                        + b.sideFloatsPerExample(steps, contextSteps(node, b.getWidth(), b.getConditionWidth()));
                if (b.isRecompute()) {
                    sharedBlockBuffers = Math.max(sharedBlockBuffers, b.bufferFloatsPerExample(steps));
                }
            } else if (layer instanceof SelfAttention a && steps > 0) {
                outputs += FitEstimate.attentionElements(a, steps);
            } else if (layer instanceof CrossAttention a && steps > 0) {
                outputs += output;
                buffers += a.keptFloatsPerExample(steps, contextSteps(node, a.getWidth(), 0));
            } else if (layer instanceof PatchEmbeddingKernel p) {
                outputs += output;
                buffers += p.bufferFloatsPerExample();
            } else if (layer instanceof PatchEmbedding3DKernel p) {
                outputs += output;
                patchBuffers(p.isRecompute(), p.bufferFloatsPerExample());
            } else if (layer instanceof Unpatch3DKernel u) {
                outputs += output;
                patchBuffers(u.isRecompute(), u.bufferFloatsPerExample());
            } else if (layer instanceof RecomputingLayer) {
                // one copy fewer than the factor counts: the pre-activation it would otherwise keep
                outputs +=
                        output * (FitEstimate.FALLBACK_ACTIVATION_FACTOR - 1L) / FitEstimate.FALLBACK_ACTIVATION_FACTOR;
            } else {
                outputs += output;
            }
        }

        private void patchBuffers(boolean recompute, long floats) {
            if (recompute) {
                sharedPatchBuffers = Math.max(sharedPatchBuffers, floats);
            } else {
                buffers += floats;
            }
        }

        /** The context tokens S a node reads through its packed input ({@code <node>_packed}); 0 without one. */
        private long contextSteps(String node, long width, long conditionWidth) {
            return BlockInputsVertex.contextSteps(types.get(node + "_packed"), width, conditionWidth);
        }
    }
}
