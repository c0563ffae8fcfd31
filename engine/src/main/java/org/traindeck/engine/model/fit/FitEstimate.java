package org.traindeck.engine.model.fit;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.deeplearning4j.nn.conf.CacheMode;
import org.deeplearning4j.nn.conf.ComputationGraphConfiguration;
import org.deeplearning4j.nn.conf.graph.GraphVertex;
import org.deeplearning4j.nn.conf.graph.LayerVertex;
import org.deeplearning4j.nn.conf.layers.samediff.AbstractSameDiffLayer;
import org.deeplearning4j.nn.conf.memory.MemoryReport;
import org.deeplearning4j.nn.conf.memory.MemoryType;
import org.deeplearning4j.nn.conf.memory.MemoryUseMode;
import org.deeplearning4j.nn.conf.memory.NetworkMemoryReport;
import org.nd4j.linalg.api.buffer.DataType;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.model.ModelInput;
import org.traindeck.engine.model.kernels.transformer.CrossAttention;
import org.traindeck.engine.model.kernels.transformer.TransformerBlock;
import org.traindeck.engine.model.layers.SelfAttention;
import org.traindeck.engine.model.nodes.RecomputeChains;
import org.traindeck.engine.model.nodes.RecomputingLayer;

/**
 * Training memory of one model replica at one stage's batch, in bytes: weights, their gradients, the optimizer's
 * state and the activations (with their gradients and working memory) of {@code batch} examples.
 * {@code fromReport} tells whether the activations are DL4J's memory report or TrainDeck's own fallback.
 */
public record FitEstimate(
        long weights,
        long gradients,
        long optimizerState,
        long activations,
        int batch,
        String optimizer,
        boolean fromReport) {

    /**
     * Activations kept for backprop, their gradients, and one working copy: DL4J's report cannot see inside
     * SameDiff layers (it answers an empty report), so for them each activation is counted this many times (the
     * kernels' own buffers, which hold their gradients already, once: {@link ShapeCount}).
     */
    static final int FALLBACK_ACTIVATION_FACTOR = 3;

    public long total() {
        return weights + gradients + optimizerState + activations;
    }

    /** Moments per parameter: Adam's two, one for momentum or a running square, none for plain SGD. */
    public static int stateSlots(String optimizer) {
        return switch (optimizer) {
            case "adam", "adamw" -> 2;
            case "nesterovs", "rmsprop" -> 1;
            default -> 0;
        };
    }

    /** The shape that does not change with the batch, worked out once; {@link #at(int)} scales it to a batch. */
    public record Model(
            long parameters, int bytesPerValue, String optimizer, long activationBytesPerExample, boolean fromReport) {

        public FitEstimate at(int batch) {
            long params = parameters * bytesPerValue;
            return new FitEstimate(
                    params,
                    params,
                    params * stateSlots(optimizer),
                    activationBytesPerExample * batch,
                    batch,
                    optimizer,
                    fromReport);
        }
    }

    public static Model model(
            ComputationGraphConfiguration conf, ModelInput input, long parameters, StageConfig stage) {
        boolean half = stage.precision() == StageConfig.Precision.FLOAT16;
        DataType type = half ? DataType.HALF : DataType.FLOAT;
        int bytes = half ? 2 : 4;
        String optimizer = stage.optimizer().type();
        if (!countsFromShapes(conf)) {
            try {
                NetworkMemoryReport report = (NetworkMemoryReport) conf.clone().getMemoryReport(input.types());
                // The report's parameter, gradient and updater parts (its updater is not the stage's) do not grow with
                // the batch: the difference between two batches is what each example adds, working memory included.
                Set<String> recomputing = recomputingLayers(conf);
                Set<String> unkept = new HashSet<>(RecomputeChains.links(conf).values());
                ConvKernels kernels = ConvKernels.of(conf);
                long at1 = trainingBytes(report, recomputing, unkept, kernels, 1, type);
                long at2 = trainingBytes(report, recomputing, unkept, kernels, 2, type);
                long perExample = Math.max(0, at2 - at1);
                return new Model(parameters, bytes, optimizer, perExample, true);
            } catch (RuntimeException e) {
                // some vertex has no report: count the activations ourselves
            }
        }
        return new Model(
                parameters,
                bytes,
                optimizer,
                bytes * ShapeCount.of(conf, input).floats(FALLBACK_ACTIVATION_FACTOR),
                false);
    }

    /** The layers of nodes with {@code "recompute": true} whose DL4J layer keeps nothing of its forward pass. */
    private static Set<String> recomputingLayers(ComputationGraphConfiguration conf) {
        Set<String> out = new HashSet<>();
        conf.getVertices().forEach((name, v) -> {
            if (v instanceof LayerVertex l && l.getLayerConf().getLayer() instanceof RecomputingLayer) {
                out.add(name);
            }
        });
        return out;
    }

    /**
     * DL4J's {@link NetworkMemoryReport#getTotalMemoryBytes} (every layer's memory, plus the largest working memory)
     * with the cache mode each layer runs under: the network's DEVICE, NONE for recomputing layers, whose working
     * memory is one slice's whatever the batch (ExampleSlices), and without the outputs of {@code unkept} layers,
     * which their consumers compute again ({@link RecomputeChains}).
     */
    public static long trainingBytes(
            NetworkMemoryReport report, Set<String> recomputing, Set<String> unkept, int batch, DataType type) {
        return trainingBytes(report, recomputing, unkept, ConvKernels.NONE, batch, type);
    }

    /**
     * As above, with the layers on TrainDeck's convolution kernels counted as the kernels run: no cache and no working
     * memory of DL4J's (its im2col; the kernels' scratch is one channel's image a thread), and for a convolution with a
     * relu the gradient buffer it keeps, of its output's size.
     */
    static long trainingBytes(
            NetworkMemoryReport report,
            Set<String> recomputing,
            Set<String> unkept,
            ConvKernels kernels,
            int batch,
            DataType type) {
        long total = 0;
        long maxWorking = 0;
        for (Map.Entry<String, MemoryReport> e :
                report.getLayerAndVertexReports().entrySet()) {
            boolean recomputes = recomputing.contains(e.getKey());
            CacheMode mode = recomputes ? CacheMode.NONE : CacheMode.DEVICE;
            MemoryReport r = e.getValue();
            if (kernels.layers().contains(e.getKey())) {
                total += kernelBytes(r, kernels.keptGradients().contains(e.getKey()), batch, type);
                continue;
            }
            for (MemoryType t : MemoryType.values()) {
                boolean skipped = t == MemoryType.WORKING_MEMORY_FIXED
                        || t == MemoryType.WORKING_MEMORY_VARIABLE
                        || (t == MemoryType.ACTIVATIONS && unkept.contains(e.getKey()));
                if (!skipped) {
                    total += r.getMemoryBytes(t, batch, MemoryUseMode.TRAINING, mode, type);
                }
            }
            int slice = recomputes ? 1 : batch;
            maxWorking = Math.max(
                    maxWorking,
                    r.getMemoryBytes(MemoryType.WORKING_MEMORY_FIXED, slice, MemoryUseMode.TRAINING, mode, type)
                            + r.getMemoryBytes(
                                    MemoryType.WORKING_MEMORY_VARIABLE, slice, MemoryUseMode.TRAINING, mode, type));
        }
        return total + maxWorking;
    }

    /** A kernel layer's parameters, activations and their gradients, and the kept gradient buffer where it has one. */
    private static long kernelBytes(MemoryReport r, boolean keepsGradient, int batch, DataType type) {
        long total = 0;
        for (MemoryType t : List.of(
                MemoryType.PARAMETERS,
                MemoryType.PARAMATER_GRADIENTS,
                MemoryType.UPDATER_STATE,
                MemoryType.ACTIVATIONS,
                MemoryType.ACTIVATION_GRADIENTS)) {
            total += r.getMemoryBytes(t, batch, MemoryUseMode.TRAINING, CacheMode.NONE, type);
        }
        if (keepsGradient) {
            total += r.getMemoryBytes(MemoryType.ACTIVATIONS, batch, MemoryUseMode.TRAINING, CacheMode.NONE, type);
        }
        return total;
    }

    /**
     * Whether DL4J's report cannot count the model: it is empty for SameDiff layers, and the block and cross-attention
     * kernels give their kept buffers as working memory, of which the report counts only the largest layer's.
     */
    private static boolean countsFromShapes(ComputationGraphConfiguration conf) {
        for (GraphVertex v : conf.getVertices().values()) {
            if (v instanceof LayerVertex l
                    && (l.getLayerConf().getLayer() instanceof AbstractSameDiffLayer
                            || l.getLayerConf().getLayer() instanceof TransformerBlock
                            || l.getLayerConf().getLayer() instanceof CrossAttention)) {
                return true;
            }
        }
        return false;
    }

    /**
     * SameDiff keeps every op's output of a layer for its backward pass, and attention's outputs are mostly its
     * intermediates: about 14 [T, width] arrays (rows, q/k/v and their reshapes and permutes, the attended values, the
     * projection) and 3 [heads, T, T] ones (scores, masked scores, softmax) per example.
     */
    static long attentionElements(SelfAttention a, long steps) {
        return 14 * steps * a.getNOut() + 3L * a.getHeads() * steps * steps;
    }
}
