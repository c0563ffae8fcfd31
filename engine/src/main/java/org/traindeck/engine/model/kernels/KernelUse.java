package org.traindeck.engine.model.kernels;

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

    private static final String CUDA_BACKEND = "org.nd4j.linalg.jcublas.JCublasBackend";

    /**
     * OWN on ND4J's CPU backend, REFERENCE when the CUDA backend is on the class path (ND4J prefers it). Decided from the
     * class path, so that it neither loads ND4J nor depends on who loads it first (Nd4jRuntime picks the natives).
     */
    public static KernelUse forCurrentBackend() {
        try {
            Class.forName(CUDA_BACKEND, false, KernelUse.class.getClassLoader());
            return REFERENCE;
        } catch (ClassNotFoundException e) {
            return OWN;
        }
    }

    /** Whether a layer whose config says {@code option} (null: nothing) gets the kernel. */
    public boolean kernelFor(String option) {
        return this == OWN && !DL4J.equals(option);
    }
}
