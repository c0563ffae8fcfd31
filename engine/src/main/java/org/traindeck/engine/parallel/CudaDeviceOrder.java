package org.traindeck.engine.parallel;

/**
 * CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, while nvidia-smi (and TrainDeck's selector)
 * number them in PCI bus order. Setting the variable in the process's real environment before ND4J loads CUDA makes
 * the two agree, so "GPUs 1 and 3" are the GPUs nvidia-smi calls 1 and 3.
 */
public final class CudaDeviceOrder {

    static final String NAME = "CUDA_DEVICE_ORDER";
    static final String PCI = "PCI_BUS_ID";

    private CudaDeviceOrder() {}

    /** Sets PCI bus order if it still can; returns a warning when the numbering may differ, else null. */
    public static String ensurePciBusOrder(boolean backendAlreadyLoaded) {
        String current = NativeEnvironment.get(NAME);
        if (PCI.equals(current)) {
            return null;
        }
        if (!backendAlreadyLoaded) {
            String problem = NativeEnvironment.set(NAME, PCI);
            return problem == null
                    ? null
                    : "could not set " + NAME + "=" + PCI + " (" + problem + "): CUDA may number the GPUs "
                            + "differently from nvidia-smi; set it before starting TrainDeck";
        }
        return "ND4J was loaded before " + NAME + "=" + PCI
                + " could be set, so CUDA numbers the GPUs fastest first, which may "
                + "differ from nvidia-smi's numbering on a machine with different GPUs; set " + NAME + "=" + PCI
                + " before starting TrainDeck";
    }
}
