package org.traindeck.engine.train.step;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import org.deeplearning4j.nn.api.Trainable;
import org.deeplearning4j.nn.conf.GradientNormalization;
import org.deeplearning4j.nn.graph.ComputationGraph;
import org.deeplearning4j.nn.updater.UpdaterBlock;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.learning.config.Adam;
import org.nd4j.linalg.learning.config.IUpdater;
import org.nd4j.linalg.learning.config.NoOp;
import org.nd4j.linalg.learning.config.Sgd;
import org.nd4j.linalg.learning.regularization.L2Regularization;
import org.nd4j.linalg.learning.regularization.Regularization;
import org.nd4j.linalg.learning.regularization.WeightDecay;
import org.nd4j.linalg.schedule.ISchedule;

/**
 * DL4J's updater step (division by the example count, clipping, L2 or decoupled weight decay, Adam / SGD / NoOp,
 * the parameter subtraction) as one pass over the parameters, gradients and optimizer state of each updater block,
 * in the network's own native buffers. The state keeps DL4J's layout (per block: m of every parameter, then v), and
 * the arithmetic is DL4J's, in float32 and in the same order ({@code libnd4j} adam_updater, Axpy for L2 and weight
 * decay), so checkpoints and resumes are unchanged. {@link #plan} says null for what it does not cover
 * (Nesterovs, RMSProp, L1, per-layer clipping, other data types): DL4J's updater then does the step.
 */
final class FusedUpdate {

    /** Consecutive parameters of one layer variable: whether their gradient is divided by the examples, and regularization. */
    record Segment(int start, int end, boolean divide, ISchedule l2, ISchedule decay, boolean decayTimesLr) {}

    /** One DL4J updater block: its updater configuration (Adam, Sgd or NoOp), where its state begins, its segments. */
    record Block(IUpdater config, int stateStart, int values, List<Segment> segments) {}

    private final List<Block> blocks;
    private final FloatBuffer params;
    private final FloatBuffer grads;
    private final FloatBuffer state;
    private final AdamMath.Scratch scratch = new AdamMath.Scratch();
    private final List<AdamMath.Scratch> partScratch = new ArrayList<>();
    /** Whether the segments cover every parameter once (then {@link #gradientNorm} is the whole gradient's). */
    private final boolean coversAll;

    private FusedUpdate(List<Block> blocks, FloatBuffer params, FloatBuffer grads, FloatBuffer state) {
        this.blocks = blocks;
        this.params = params;
        this.grads = grads;
        this.state = state;
        long covered = 0;
        for (Block b : blocks) {
            for (Segment s : b.segments()) {
                covered += s.end() - s.start();
            }
        }
        this.coversAll = covered == grads.capacity();
    }

    /** The fused step for this network as its updater is now, or null when it covers not all of it. */
    static FusedUpdate plan(ComputationGraph net) {
        INDArray p = net.params();
        INDArray g = net.getGradientsViewArray();
        INDArray s = net.getUpdater().getStateViewArray();
        if (!flatFloat(p) || !flatFloat(g) || s != null && !flatFloat(s) || p.length() != g.length()) {
            return null;
        }
        List<Block> blocks = new ArrayList<>();
        for (UpdaterBlock ub : net.getUpdater().getUpdaterBlocks()) {
            if (ub.isPretrainUpdaterBlock()) {
                return null;
            }
            IUpdater config = ub.getGradientUpdater().getConfig();
            if (!(config instanceof Adam || config instanceof Sgd || config instanceof NoOp)) {
                return null;
            }
            List<Segment> segments = new ArrayList<>();
            for (UpdaterBlock.ParamState ps : ub.getLayersAndVariablesInBlock()) {
                Segment seg = segment(ps);
                if (seg == null) {
                    return null;
                }
                segments.add(seg);
            }
            int values = ub.getParamOffsetEnd() - ub.getParamOffsetStart();
            if (values > 0
                    && config instanceof Adam
                    && (ub.getUpdaterViewOffsetEnd() - ub.getUpdaterViewOffsetStart()) != 2 * values) {
                return null;
            }
            blocks.add(new Block(config, ub.getUpdaterViewOffsetStart(), values, segments));
        }
        return new FusedUpdate(blocks, buffer(p), buffer(g), s == null ? null : buffer(s));
    }

    private static Segment segment(UpdaterBlock.ParamState ps) {
        Trainable layer = ps.getLayer();
        GradientNormalization clipping = layer.getConfig().getGradientNormalization();
        if (clipping != null && clipping != GradientNormalization.None) {
            return null;
        }
        ISchedule l2 = null;
        ISchedule decay = null;
        boolean decayTimesLr = false;
        List<Regularization> regs = layer.getConfig().getRegularizationByParam(ps.getParamName());
        for (Regularization r : regs == null ? List.<Regularization>of() : regs) {
            if (r instanceof L2Regularization l && l2 == null) {
                l2 = l.getL2();
            } else if (r instanceof WeightDecay w && decay == null) {
                decay = w.getCoeff();
                decayTimesLr = w.isApplyLR();
            } else {
                return null;
            }
        }
        return new Segment(
                ps.getParamOffsetStart(),
                ps.getParamOffsetEnd(),
                layer.updaterDivideByMinibatch(ps.getParamName()),
                l2,
                decay,
                decayTimesLr);
    }

    private static boolean flatFloat(INDArray a) {
        return a.dataType() == DataType.FLOAT
                && a.offset() == 0
                && a.data().offset() == 0
                && a.length() == a.data().length()
                && a.length() < Integer.MAX_VALUE;
    }

    private static FloatBuffer buffer(INDArray a) {
        return a.data().asNioFloat();
    }

    boolean coversAll() {
        return coversAll;
    }

    /**
     * The L2 norm of the gradient view (BatchNorm statistics left out); only where {@link #coversAll}. A Java pass at about a sixth of ND4J's norm2 on the MLP's gradient; it sums in float per group of 128
     * values and in double above, so it differs from ND4J's float sum in the last digits: use it where the norm is only
     * reported and checked for being finite, not where it clips (there DL4J's path sets the figure).
     */
    double gradientNorm() {
        double sum = 0;
        float[] gs = scratch.grads;
        for (Block b : blocks) {
            for (Segment s : b.segments()) {
                if (s.divide()) {
                    for (int c = s.start(); c < s.end(); c += AdamMath.Scratch.CHUNK) {
                        int n = Math.min(AdamMath.Scratch.CHUNK, s.end() - c);
                        grads.get(c, gs, 0, n);
                        sum += squares(gs, n);
                    }
                }
            }
        }
        return Math.sqrt(sum);
    }

    /** Σ v[i]² over [0, n), in eight independent float sums (no chain of dependent additions). */
    private static double squares(float[] v, int n) {
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
        int i = 0;
        for (; i + 7 < n; i += 8) {
            s0 += v[i] * v[i];
            s1 += v[i + 1] * v[i + 1];
            s2 += v[i + 2] * v[i + 2];
            s3 += v[i + 3] * v[i + 3];
            s4 += v[i + 4] * v[i + 4];
            s5 += v[i + 5] * v[i + 5];
            s6 += v[i + 6] * v[i + 6];
            s7 += v[i + 7] * v[i + 7];
        }
        double sum = (double) s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7;
        for (; i < n; i++) {
            sum += (double) v[i] * v[i];
        }
        return sum;
    }

    /**
     * One step: gradient / examples (BatchNorm statistics / micro-batches) times {@code clip}, then each block's
     * optimizer, then parameters minus update. The gradient view is left as it was (not turned into the update).
     */
    void apply(int iteration, int epoch, int examples, int microBatches, double clip) {
        apply(iteration, epoch, examples, microBatches, clip, 0, 1);
    }

    /**
     * The step on part {@code part} of {@code parts} equal runs of the parameters: every value's arithmetic is its
     * own, so the parts, on as many threads at once (one call per part), give the very step one call does.
     */
    void apply(int iteration, int epoch, int examples, int microBatches, double clip, int part, int parts) {
        long total = grads.capacity();
        int from = (int) (total * part / parts);
        int to = (int) (total * (part + 1) / parts);
        AdamMath.Scratch x = scratch(part);
        float byExamples = examples;
        float byMicroBatches = microBatches;
        float clipF = (float) clip;
        for (Block b : blocks) {
            if (b.values() == 0) {
                continue;
            }
            IUpdater config = b.config();
            double lr = config.hasLearningRate() ? config.getLearningRate(iteration, epoch) : 1.0;
            int first = b.segments().get(0).start();
            for (Segment s : b.segments()) {
                int start = Math.max(s.start(), from);
                int end = Math.min(s.end(), to);
                if (start >= end) {
                    continue;
                }
                float div = s.divide() ? byExamples : byMicroBatches;
                float scale = s.divide() ? clipF : 1f;
                float l2 = s.l2() == null ? 0f : (float) s.l2().valueAt(iteration, epoch);
                float decay = s.decay() == null
                        ? 0f
                        : (float) (s.decay().valueAt(iteration, epoch) * (s.decayTimesLr() ? lr : 1.0));
                if (config instanceof Adam adam) {
                    int m = b.stateStart() + (start - first);
                    AdamMath.step(
                            params,
                            grads,
                            state,
                            start,
                            end,
                            m,
                            m + b.values(),
                            div,
                            scale,
                            l2,
                            decay,
                            adam,
                            lr,
                            iteration,
                            x);
                } else {
                    float rate = config instanceof Sgd ? (float) lr : 1f;
                    plain(start, end, div, scale, l2, decay, rate, config instanceof Sgd, x);
                }
            }
        }
    }

    /** Part {@code part}'s scratch arrays: one set per thread that runs a part. */
    private AdamMath.Scratch scratch(int part) {
        if (part == 0) {
            return scratch;
        }
        synchronized (partScratch) {
            while (partScratch.size() < part) {
                partScratch.add(new AdamMath.Scratch());
            }
            return partScratch.get(part - 1);
        }
    }

    private void plain(
            int from,
            int to,
            float div,
            float scale,
            float l2,
            float decay,
            float rate,
            boolean sgd,
            AdamMath.Scratch x) {
        float[] ps = x.params;
        float[] gs = x.grads;
        for (int c = from; c < to; c += AdamMath.Scratch.CHUNK) {
            int n = Math.min(AdamMath.Scratch.CHUNK, to - c);
            params.get(c, ps, 0, n);
            grads.get(c, gs, 0, n);
            for (int i = 0; i < n; i++) {
                float pi = ps[i];
                float gi = gs[i] / div * scale;
                gi = l2 * pi + gi;
                float up = sgd ? gi * rate : gi;
                up = decay * pi + up;
                ps[i] = pi - up;
            }
            params.put(c, ps, 0, n);
        }
    }
}
