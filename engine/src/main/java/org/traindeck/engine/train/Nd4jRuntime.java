package org.traindeck.engine.train;

import org.nd4j.linalg.factory.Nd4j;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

/** Process-wide ND4J set-up, done once before the backend is first used. */
public final class Nd4jRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(Nd4jRuntime.class);
    private static volatile boolean initialised;

    private Nd4jRuntime() {
    }

    /** Threads for ND4J's own ops when OMP_NUM_THREADS is not set: one per physical core, roughly. */
    public static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    /** Whether ND4J (and with it the native backend) has been loaded by TrainDeck in this process. */
    public static boolean isLoaded() {
        return initialised;
    }

    public static synchronized void init() {
        if (initialised) {
            return;
        }
        if (System.getProperty("org.deeplearning4j.resources.directory") == null) {
            // DL4J would otherwise create ~/.deeplearning4j
            System.setProperty("org.deeplearning4j.resources.directory", dataHome().resolve("dl4j-resources").toString());
        }
        // Its out-of-memory report writes dump files into the working directory and uses an OSHI API that no longer exists.
        org.deeplearning4j.util.CrashReportingUtil.crashDumpsEnabled(false);
        String omp = System.getenv("OMP_NUM_THREADS");
        if (omp == null || omp.isBlank()) {
            // More threads than cores makes small models several times slower (oversubscription).
            int threads = defaultThreads();
            Nd4j.getEnvironment().setMaxThreads(threads);
            Nd4j.getEnvironment().setMaxMasterThreads(threads);
            LOG.info("OMP_NUM_THREADS is not set: ND4J uses {} thread(s)", threads);
        }
        initialised = true;
    }

    /** "cpu" for nd4j-native, "cuda" for nd4j-cuda. */
    public static String backendKind() {
        init();
        String name = Nd4j.getBackend().getClass().getName().toLowerCase();
        return name.contains("cuda") || name.contains("jcublas") ? "cuda" : "cpu";
    }

    /** TrainDeck's per-user data folder ($XDG_DATA_HOME/traindeck or ~/.local/share/traindeck). */
    public static Path dataHome() {
        String xdg = System.getenv("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".local", "share");
        return base.resolve("traindeck");
    }
}
