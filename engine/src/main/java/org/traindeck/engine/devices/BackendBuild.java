package org.traindeck.engine.devices;

/**
 * Which of ND4J's backends this build of TrainDeck carries, told by its classes without loading any native library:
 * the CUDA build ({@code mvn -Pcuda}) trains only on GPUs, so what the device views say without one differs.
 */
public final class BackendBuild {

    /** The class only ND4J's CUDA backend has. */
    public static final String CUDA_BACKEND = "org.nd4j.linalg.jcublas.JCublasBackend";

    private BackendBuild() {}

    /** Whether this process carries ND4J's CUDA backend. */
    public static boolean cuda() {
        return carries(CUDA_BACKEND);
    }

    /** Whether this process's class path has the class named {@code name}. */
    public static boolean carries(String name) {
        return BackendBuild.class.getClassLoader().getResource(name.replace('.', '/') + ".class") != null;
    }
}
