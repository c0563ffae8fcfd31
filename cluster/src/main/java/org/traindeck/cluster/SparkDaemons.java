package org.traindeck.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.traindeck.engine.api.Engine;

/**
 * Starts Spark's own standalone master and workers from TrainDeck's class path (no Spark download), each in a child
 * JVM: Spark reads where its jars are, the Scala version, the interface to bind and the secret from the environment,
 * which a running JVM cannot change for itself. The secret travels in the child's environment
 * ({@code _SPARK_AUTH_SECRET}, readable by its owner only), never on a command line.
 */
public final class SparkDaemons {

    public static final String MASTER_CLASS = "org.apache.spark.deploy.master.Master";
    public static final String WORKER_CLASS = "org.apache.spark.deploy.worker.Worker";

    private SparkDaemons() {}

    /** Authentication and RPC encryption on, for daemons and drivers alike. */
    static List<String> securityProperties() {
        return List.of("-Dspark.authenticate=true", "-Dspark.network.crypto.enabled=true");
    }

    /** The web UIs' interface unless the user names another: this machine only, as they are not authenticated. */
    public static final String LOOPBACK = "127.0.0.1";

    /** A master whose RPC listens on {@code host} and its web UI on {@code webUiHost}. */
    public static ProcessBuilder master(
            String host, int port, String webUiHost, int webUiPort, String secret, Path logFile) {
        return daemon(
                MASTER_CLASS,
                webUiHost,
                secret,
                logFile,
                List.of("--host", host, "--port", String.valueOf(port), "--webui-port", String.valueOf(webUiPort)));
    }

    /**
     * A worker whose RPC listens on {@code host} and its web UI on {@code webUiHost}, offering {@code cores} cores and
     * {@code memory} ("2g") to the master at {@code masterUrl}.
     */
    public static ProcessBuilder worker(
            String masterUrl,
            String host,
            int cores,
            String memory,
            String webUiHost,
            int webUiPort,
            String secret,
            Path workDir,
            Path logFile) {
        return daemon(
                WORKER_CLASS,
                webUiHost,
                secret,
                logFile,
                List.of(
                        "--host",
                        host,
                        "--cores",
                        String.valueOf(cores),
                        "--memory",
                        memory,
                        "--webui-port",
                        String.valueOf(webUiPort),
                        "--work-dir",
                        workDir.toString(),
                        masterUrl));
    }

    private static ProcessBuilder daemon(
            String mainClass, String webUiHost, String secret, Path logFile, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx512m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(securityProperties());
        // the master's UI would otherwise take a POST to /app/kill from anyone who reaches it and end a training run
        command.add("-Dspark.ui.killEnabled=false");
        command.add("-Dlogback.configurationFile=traindeck-cluster-daemon.xml");
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.put("SPARK_HOME", sparkHome().toString());
        env.put("SPARK_SCALA_VERSION", "2.12");
        // the class path a worker gives its executors: TrainDeck's, as installed on that machine
        env.put("SPARK_DIST_CLASSPATH", System.getProperty("java.class.path"));
        // Spark 3.5 binds a daemon's web UI to SPARK_LOCAL_IP (otherwise every interface); the RPC takes --host
        env.put("SPARK_LOCAL_IP", webUiHost);
        env.put("_SPARK_AUTH_SECRET", secret);
        env.putIfAbsent("OMP_NUM_THREADS", "1");
        pb.redirectErrorStream(true);
        if (logFile != null) {
            pb.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        }
        return pb;
    }

    /** A folder Spark accepts as its home: the jars are on the class path, so its jars/ is empty. */
    static Path sparkHome() {
        Path home = Engine.dataHome().resolve("cluster").resolve("spark-home");
        try {
            Files.createDirectories(home.resolve("jars"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + home.resolve("jars"), e);
        }
        return home;
    }
}
