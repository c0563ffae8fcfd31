package org.traindeck.engine.model.kernels;

import org.nd4j.linalg.factory.Nd4j;

/**
 * Whether a model is built with TrainDeck's CPU kernels or with the DL4J layers they replace. The kernels read and
 * write host memory, so on the CUDA backend the DL4J layers are used; a node may also ask for them ({@code "kernel":
 * "dl4j"}).
 */
public enum KernelUse {
    /** The kernels wherever a node does not ask otherwise. */
    OWN,
    /** DL4J's layers everywhere. */
    REFERENCE;

    /** The option value by which a node asks for DL4J's layer. */
    public static final String DL4J = "dl4j";

    /** OWN on ND4J's CPU backend, REFERENCE on any other (CUDA). */
    public static KernelUse forCurrentBackend() {
        String name = Nd4j.getBackend().getClass().getName().toLowerCase();
        return name.contains("cuda") || name.contains("jcublas") ? REFERENCE : OWN;
    }

    /** Whether a layer whose config says {@code option} (null: nothing) gets the kernel. */
    public boolean kernelFor(String option) {
        return this == OWN && !DL4J.equals(option);
    }
}
