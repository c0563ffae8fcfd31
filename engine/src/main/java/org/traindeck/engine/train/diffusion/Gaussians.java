package org.traindeck.engine.train.diffusion;

import java.util.SplittableRandom;

/** Standard normal draws from a seeded generator (Box–Muller), the same on every machine and thread. */
public final class Gaussians {

    private Gaussians() {}

    public static double next(SplittableRandom r) {
        double u = 1 - r.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble());
    }
}
