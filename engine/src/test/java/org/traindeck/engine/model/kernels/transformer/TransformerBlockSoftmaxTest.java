package org.traindeck.engine.model.kernels.transformer;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class TransformerBlockSoftmaxTest {

    @Test
    void causalSoftmaxDownTheColumnsOfSideBySideHeadsMatchesDoublePrecisionAndZeroesTheFuture() {
        int t = 7;
        int heads = 3;
        int w = heads * t;
        // s[j][h t + i]: key j's score for head h's query i
        float[] s = new float[t * w];
        for (int k = 0; k < s.length; k++) {
            s[k] = (float) Math.sin(k * 1.7) * 30;
        }
        float[] p = s.clone();
        TransformerBlockSoftmax.forward(p, t, heads, true, new float[w], new float[w]);
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < t; i++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int j = 0; j <= i; j++) {
                    max = Math.max(max, s[j * w + h * t + i]);
                }
                double sum = 0;
                for (int j = 0; j <= i; j++) {
                    sum += Math.exp(s[j * w + h * t + i] - max);
                }
                for (int j = 0; j < t; j++) {
                    double expected = j <= i ? Math.exp(s[j * w + h * t + i] - max) / sum : 0;
                    assertThat((double) p[j * w + h * t + i])
                            .as("head %s, p[%s][%s]", h, i, j)
                            .isCloseTo(expected, Offset.offset(1e-6));
                }
            }
        }
    }

    @Test
    void softmaxBackwardDownTheColumnsIsTheJacobianProduct() {
        int t = 5;
        int heads = 2;
        int w = heads * t;
        float[] p = new float[t * w];
        float[] dp = new float[t * w];
        for (int k = 0; k < p.length; k++) {
            p[k] = (float) Math.cos(k * 0.9) * 3;
            dp[k] = (float) Math.sin(k * 1.3);
        }
        TransformerBlockSoftmax.forward(p, t, heads, false, new float[w], new float[w]);
        float[] ds = dp.clone();
        float scale = 0.5f;
        TransformerBlockSoftmax.backward(p, ds, t, heads, scale, new float[w], new float[w]);
        for (int col = 0; col < w; col++) {
            for (int j = 0; j < t; j++) {
                // dS_j = scale sum_k dP_k dP_k/dS_j, with dP_k/dS_j = P_k (delta_kj - P_j)
                double expected = 0;
                for (int k = 0; k < t; k++) {
                    double pk = p[k * w + col];
                    double pj = p[j * w + col];
                    expected += dp[k * w + col] * pk * ((k == j ? 1 : 0) - pj);
                }
                assertThat((double) ds[j * w + col])
                        .as("column %s, key %s", col, j)
                        .isCloseTo(scale * expected, Offset.offset(1e-6));
            }
        }
    }
}
