package org.traindeck.engine.train;

import java.nio.file.Path;
import java.util.Locale;
import org.deeplearning4j.util.CrashReportingUtil;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.nativeblas.NativeOpsHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.traindeck.engine.config.DataHome;

/** Process-wide ND4J set-up, done once before the backend is first used. */
public final class Nd4jRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(Nd4jRuntime.class);
    /** The threads the process may use for native ops (OMP_NUM_THREADS, or the default); set by {@link #init}. */
    private static volatile int threadBudget = 1;

    private static final String NATIVES_EXTENSION = "org.bytedeco.javacpp.platform.extension";
    private static volatile boolean initialised;
    /** Why the backend did not start, kept: ND4J's classes stay broken for the process's life after that. */
    private static volatile NativeBackendException backendFailure;

    private Nd4jRuntime() {}

    /** Threads for ND4J's own ops when OMP_NUM_THREADS is not set: one per physical core, roughly. */
    public static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    /** Whether ND4J (and with it the native backend) has been loaded by TrainDeck in this process. */
    public static boolean isLoaded() {
        return initialised;
    }

    /**
     * @throws NativeBackendException when ND4J's native backend cannot start in this process (then on every call)
     */
    public static synchronized void init() {
        if (initialised) {
            return;
        }
        if (backendFailure != null) {
            throw new NativeBackendException(backendFailure.getMessage(), backendFailure.getCause());
        }
        selectNatives();
        loadBackend(NativeBackendProblem.here());
        if (System.getProperty("org.deeplearning4j.resources.directory") == null) {
            // DL4J would otherwise create ~/.deeplearning4j
            System.setProperty(
                    "org.deeplearning4j.resources.directory",
                    dataHome().resolve("dl4j-resources").toString());
        }
        // Its out-of-memory report writes dump files into the working directory and uses an OSHI API that no longer
        // exists.
        CrashReportingUtil.crashDumpsEnabled(false);
        String omp = System.getenv("OMP_NUM_THREADS");
        if (omp == null || omp.isBlank()) {
            // More threads than cores makes small models several times slower (oversubscription).
            int threads = defaultThreads();
            Nd4j.getEnvironment().setMaxThreads(threads);
            Nd4j.getEnvironment().setMaxMasterThreads(threads);
            LOG.info("OMP_NUM_THREADS is not set: ND4J uses {} thread(s)", threads);
        }
        threadBudget = Math.max(1, Nd4j.getEnvironment().maxThreads());
        initialised = true;
    }

    private static void loadBackend(NativeBackendProblem problem) {
        backendFailure = problem.beforeLoading();
        if (backendFailure != null) {
            throw backendFailure;
        }
        try {
            Nd4j.getBackend();
        } catch (LinkageError | RuntimeException e) {
            backendFailure = problem.explain(e);
            throw backendFailure;
        }
    }

    /**
     * Shares the process's thread budget between a run's CPU workers: each of {@code workers} replicas steps on its
     * own thread and runs its ops and matrix products with budget / workers threads (at least one), so that
     * {@code cpu:N} does not start N × budget threads on budget cores. One worker gets the whole budget back.
     *
     * @return the threads each worker's ops and products may use
     */
    public static int shareThreads(int workers) {
        init();
        if (!"cpu".equals(backendKind())) {
            // the CUDA backend's products run on the GPU; its host threads are ND4J's business
            return threadBudget;
        }
        int each = threadsPerWorker(threadBudget, workers);
        Nd4j.getEnvironment().setMaxThreads(each);
        Nd4j.getEnvironment().setMaxMasterThreads(each);
        Nd4j.factory().blas().setMaxThreads(each);
        return each;
    }

    static int threadsPerWorker(int budget, int workers) {
        return Math.max(1, budget / Math.max(1, workers));
    }

    /** The threads the process may use for native ops: OMP_NUM_THREADS, or {@link #defaultThreads} without it. */
    public static int threadBudget() {
        init();
        return threadBudget;
    }

    /**
     * Picks ND4J's natives built with oneDNN when they are on the class path (Linux x86-64 builds ship both) and
     * nobody chose otherwise with {@code -Dorg.bytedeco.javacpp.platform.extension}. Must run before ND4J loads.
     */
    private static void selectNatives() {
        if (System.getProperty(NATIVES_EXTENSION) != null) {
            return;
        }
        String platform = System.getProperty("org.bytedeco.javacpp.platform", defaultPlatform());
        String probe = "org/nd4j/linalg/cpu/nativecpu/bindings/" + platform + "-onednn/libjnind4jcpu.so";
        if (Nd4jRuntime.class.getClassLoader().getResource(probe) != null) {
            System.setProperty(NATIVES_EXTENSION, "-onednn");
        }
    }

    private static String defaultPlatform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux")
                ? "linux"
                : os.startsWith("mac") ? "macosx" : os.startsWith("windows") ? "windows" : os;
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("aarch64") ? "arm64" : arch;
        return o + "-" + a;
    }

    /** Why oneDNN cannot be used in this process (null when it can): not the CPU backend, or natives without oneDNN. */
    public static String oneDnnUnavailableReason() {
        init();
        if (!"cpu".equals(backendKind())) {
            return "oneDNN is for the CPU backend (the CUDA backend has its own kernels)";
        }
        try {
            String build = NativeOpsHolder.getInstance().getDeviceNativeOps().buildInfo();
            return build != null && build.contains("HAVE_ONEDNN")
                    ? null
                    : "ND4J's natives in use were built without oneDNN (the "
                            + System.getProperty(NATIVES_EXTENSION, "plain")
                            + " natives); the -onednn natives are shipped for Linux x86-64";
        } catch (RuntimeException | LinkageError e) {
            return "cannot ask ND4J whether it has oneDNN: " + e;
        }
    }

    /** "cpu" for nd4j-native, "cuda" for nd4j-cuda. */
    public static String backendKind() {
        init();
        String name = Nd4j.getBackend().getClass().getName().toLowerCase();
        return name.contains("cuda") || name.contains("jcublas") ? "cuda" : "cpu";
    }

    /** TrainDeck's per-user data folder ($XDG_DATA_HOME/traindeck or ~/.local/share/traindeck). */
    public static Path dataHome() {
        return DataHome.folder();
    }
}
