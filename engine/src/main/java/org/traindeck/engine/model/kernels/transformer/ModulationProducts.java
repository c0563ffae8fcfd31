package org.traindeck.engine.model.kernels.transformer;

import static org.traindeck.engine.model.kernels.transformer.TransformerBlockParams.MODULATION_WEIGHTS;

import org.traindeck.engine.model.kernels.BlockParameters;
import org.traindeck.engine.model.kernels.Sgemm;
import org.traindeck.engine.model.kernels.TransformerBlockBuffers.Region;

/**
 * adaLN-Zero's backward products ({@link TransformerBlockModulation}): dWm = SiLU(c)^T G [C, 6W], written straight
 * into Wm's gradient, and dSiLU = G Wm^T [mb, C], on native copies of SiLU(c) [mb, C] and G [mb, 6W] kept for one
 * minibatch size (a few kilobytes, freed with the object).
 */
final class ModulationProducts {

    private final int mb;
    private final int conditionWidth;
    private final int six;
    private final Region silu;
    private final Region gradient;
    private final Region siluGradient;

    ModulationProducts(int mb, int conditionWidth, int six) {
        this.mb = mb;
        this.conditionWidth = conditionWidth;
        this.six = six;
        silu = Region.allocate((long) mb * conditionWidth);
        gradient = Region.allocate((long) mb * six);
        siluGradient = Region.allocate((long) mb * conditionWidth);
    }

    boolean fits(int mb) {
        return this.mb == mb;
    }

    /** Writes Wm's gradient; returns SiLU(c)'s [mb, C]. */
    float[] backward(float[] siluValues, float[] modulationGradient, BlockParameters p) {
        int c = conditionWidth;
        silu.write(siluValues, mb * c);
        gradient.write(modulationGradient, mb * six);
        Sgemm.multiply(
                true,
                false,
                c,
                six,
                mb,
                1,
                silu.pointer,
                0,
                c,
                gradient.pointer,
                0,
                six,
                0,
                p.gradientPointer(MODULATION_WEIGHTS),
                0,
                six);
        Sgemm.multiply(
                false,
                true,
                mb,
                c,
                six,
                1,
                gradient.pointer,
                0,
                six,
                p.pointer(MODULATION_WEIGHTS),
                0,
                six,
                0,
                siluGradient.pointer,
                0,
                c);
        float[] out = new float[mb * c];
        siluGradient.read(out, mb * c);
        return out;
    }
}
