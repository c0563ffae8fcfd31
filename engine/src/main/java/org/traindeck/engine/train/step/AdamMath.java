package org.traindeck.engine.train.step;

import org.nd4j.linalg.learning.config.Adam;

import java.nio.FloatBuffer;

/**
 * Adam as libnd4j's {@code adam_updater} computes it in float32 (bias correction folded into the step size, epsilon
 * outside the root), with L2 before it and decoupled weight decay after it as DL4J's Axpy applies them.
 */
final class AdamMath {

    private AdamMath() {
    }

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

    static void step(FloatBuffer p, FloatBuffer g, FloatBuffer s, int from, int to, int mAt, int vAt, float div, float scale,
                     float l2, float decay, Adam adam, double lr, int iteration) {
        float b1 = (float) adam.getBeta1();
        float b2 = (float) adam.getBeta2();
        float eps = (float) adam.getEpsilon();
        float oneMinusB1 = 1f - b1;
        float oneMinusB2 = 1f - b2;
        float step = stepSize(lr, adam.getBeta1(), adam.getBeta2(), adam.getEpsilon(), iteration);
        int dm = mAt - from;
        int dv = vAt - from;
        for (int i = from; i < to; i++) {
            float pi = p.get(i);
            float gi = g.get(i) / div * scale;
            gi = l2 * pi + gi;
            float m = b1 * s.get(i + dm) + gi * oneMinusB1;
            float v = b2 * s.get(i + dv) + gi * gi * oneMinusB2;
            s.put(i + dm, m);
            s.put(i + dv, v);
            float up = m * step / ((float) Math.sqrt(v) + eps);
            up = decay * pi + up;
            p.put(i, pi - up);
        }
    }
}
