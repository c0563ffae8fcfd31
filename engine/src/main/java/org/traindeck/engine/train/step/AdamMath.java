package org.traindeck.engine.train.step;

import java.nio.FloatBuffer;
import org.nd4j.linalg.learning.config.Adam;

/**
 * Adam as libnd4j's {@code adam_updater} computes it in float32 (bias correction folded into the step size, epsilon
 * outside the root), with L2 before it and decoupled weight decay after it as DL4J's Axpy applies them.
 */
final class AdamMath {

    private AdamMath() {}

    /** The step size with both bias corrections, as libnd4j rounds it (float, with one division in double). */
    static float stepSize(double lr, double beta1, double beta2, double epsilon, int iteration) {
        float lrF = (float) lr;
        float b1 = (float) beta1;
        float b2 = (float) beta2;
        float t = (float) iteration + 1f;
        float beta1T = (float) Math.pow(b1, t);
        float beta2T = (float) Math.pow(b2, t);
        float root = (float) Math.sqrt((float) (1.0 - beta2T));
        float step = (float) ((double) (lrF * root) / (1.0 - beta1T));
        if (Float.isNaN(step) || step == 0 || Float.isInfinite(step)) {
            step = (float) epsilon;
        }
        return step;
    }

    /**
     * Adam over parameters [from, to) with m at {@code mAt} and v at {@code vAt} in the state, chunk by chunk through
     * heap arrays (bulk copies, then a loop the JIT vectorises: ~3.5x faster than element-wise buffer access).
     */
    static void step(
            FloatBuffer p,
            FloatBuffer g,
            FloatBuffer s,
            int from,
            int to,
            int mAt,
            int vAt,
            float div,
            float scale,
            float l2,
            float decay,
            Adam adam,
            double lr,
            int iteration,
            Scratch x) {
        float b1 = (float) adam.getBeta1();
        float b2 = (float) adam.getBeta2();
        float eps = (float) adam.getEpsilon();
        float step = stepSize(lr, adam.getBeta1(), adam.getBeta2(), adam.getEpsilon(), iteration);
        float[] ps = x.params;
        float[] gs = x.grads;
        float[] ms = x.first;
        float[] vs = x.second;
        for (int c = from; c < to; c += Scratch.CHUNK) {
            int n = Math.min(Scratch.CHUNK, to - c);
            int m0 = mAt + (c - from);
            int v0 = vAt + (c - from);
            p.get(c, ps, 0, n);
            g.get(c, gs, 0, n);
            s.get(m0, ms, 0, n);
            s.get(v0, vs, 0, n);
            updateChunk(x, n, div, scale, l2, decay, b1, b2, eps, step);
            p.put(c, ps, 0, n);
            s.put(m0, ms, 0, n);
            s.put(v0, vs, 0, n);
        }
    }

    /**
     * Adam on the chunk's first {@code n} values in the scratch arrays. A method of its own, so that HotSpot compiles
     * this loop once, not again on the stack (OSR) inside {@link #step} with the copies around it.
     */
    private static void updateChunk(
            Scratch x,
            int n,
            float div,
            float scale,
            float l2,
            float decay,
            float b1,
            float b2,
            float eps,
            float step) {
        float oneMinusB1 = 1f - b1;
        float oneMinusB2 = 1f - b2;
        float[] ps = x.params;
        float[] gs = x.grads;
        float[] ms = x.first;
        float[] vs = x.second;
        for (int i = 0; i < n; i++) {
            float pi = ps[i];
            float gi = gs[i] / div * scale;
            gi = l2 * pi + gi;
            float m = b1 * ms[i] + gi * oneMinusB1;
            float v = b2 * vs[i] + gi * gi * oneMinusB2;
            ms[i] = m;
            vs[i] = v;
            float up = m * step / ((float) Math.sqrt(v) + eps);
            up = decay * pi + up;
            ps[i] = pi - up;
        }
    }

    /** Heap arrays for one chunk of parameters, gradients and two states. */
    static final class Scratch {
        static final int CHUNK = 1024;
        final float[] params = new float[CHUNK];
        final float[] grads = new float[CHUNK];
        final float[] first = new float[CHUNK];
        final float[] second = new float[CHUNK];
    }
}
