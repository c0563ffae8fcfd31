package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the user is told when ND4J's backend does not start, for the failures the CUDA and CPU builds really show. */
class NativeBackendProblemTest {

    /** ND4J's own exception when the CUDA build finds no driver: the reason went to its log only. */
    private static Throwable noBackend() {
        return new ExceptionInInitializerError(new RuntimeException(
                "org.nd4j.linalg.factory.Nd4jBackend$NoAvailableBackendException: Please ensure that you have an nd4j"
                        + " backend on your classpath."));
    }

    @Test
    void theCudaBuildWithoutADriverSaysSoAndWhatToDo() {
        NativeBackendProblem problem = new NativeBackendProblem(
                Set.of(NativeBackendProblem.CUDA_BACKEND, NativeBackendProblem.CUDA_RUNTIME)::contains,
                name -> new UnsatisfiedLinkError("no jnicudart in java.library.path: /usr/lib")
                        .initCause(new UnsatisfiedLinkError("/root/.javacpp/cache/cuda-11.6-8.3-1.5.7-linux-x86_64.jar"
                                + "/org/bytedeco/cuda/linux-x86_64/libjnicudart.so: libcuda.so.1: cannot open shared"
                                + " object file: No such file or directory")));

        NativeBackendException e = problem.beforeLoading();

        assertThat(e.getMessage())
                .startsWith("this is TrainDeck's CUDA 11.6 build, and ND4J's CUDA backend cannot start here:")
                .contains("cannot start here: libcuda.so.1: cannot open shared object file: No such file or directory"
                        + " (needed by libjnicudart.so).")
                .doesNotContain(".javacpp/cache")
                .doesNotContain("no jnicudart")
                .contains("No NVIDIA driver is installed")
                .contains("release 510 or newer")
                .contains("use the CPU build");
        assertThat(e.getCause()).isInstanceOf(UnsatisfiedLinkError.class);
    }

    @Test
    void theCudaBuildWhoseRuntimeLoadsPointsAtNd4jsLog() {
        NativeBackendProblem problem =
                new NativeBackendProblem(Set.of(NativeBackendProblem.CUDA_BACKEND)::contains, name -> null);

        assertThat(problem.beforeLoading()).isNull();
        assertThat(problem.explain(noBackend()).getMessage())
                .contains("ND4J found no usable CUDA device (its log above says why)")
                .doesNotContain("No NVIDIA driver");
    }

    @Test
    void theCpuBuildNamesTheMissingLibraryOnce() {
        NativeBackendProblem problem = new NativeBackendProblem(name -> false, name -> {
            throw new AssertionError("the CPU build's reason is in the failure itself");
        });
        Throwable failure = new ExceptionInInitializerError(new RuntimeException(
                "ND4J is probably missing dependencies.",
                new UnsatisfiedLinkError("no jniopenblas_nolapack in java.library.path: /usr/lib")
                        .initCause(new UnsatisfiedLinkError(
                                "Could not find jniopenblas_nolapack in class, module, and library paths."))));

        assertThat(problem.beforeLoading()).isNull();
        assertThat(problem.explain(failure).getMessage())
                .startsWith("ND4J's CPU backend cannot load its native libraries: Could not find jniopenblas_nolapack"
                        + " in class, module, and library paths. TrainDeck ships them for ")
                .contains("org.bytedeco.javacpp.platform");
    }
}
