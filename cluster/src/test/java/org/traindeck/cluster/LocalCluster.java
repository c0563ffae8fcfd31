package org.traindeck.cluster;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A real standalone master and workers on 127.0.0.1, each its own JVM, started and stopped by a test. */
final class LocalCluster implements AutoCloseable {

    static final String HOST = "127.0.0.1";

    final Path dir;
    final Path secretFile;
    final int port;
    private final String secret;
    private Process master;
    private final List<Process> workers = new ArrayList<>();

    LocalCluster(Path dir) throws IOException {
        this.dir = dir;
        this.secretFile = dir.resolve("secret");
        this.secret = ClusterSecret.generate(secretFile);
        this.port = freePort();
        // a test JVM that dies mid-test still takes its daemons with it
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "local-cluster-stop"));
    }

    String url() {
        return "spark://" + HOST + ":" + port;
    }

    LocalCluster startMaster() throws IOException {
        master = SparkDaemons.master(HOST, port, SparkDaemons.LOOPBACK, 0, secret, dir.resolve("master.log"))
                .start();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(this::masterListens);
        return this;
    }

    /** Starts a worker with {@code workerSecret} and returns its log, without waiting for it to register. */
    Path startWorker(String workerSecret) throws IOException {
        int n = workers.size();
        Path log = dir.resolve("worker-" + n + ".log");
        Path work = Files.createDirectories(dir.resolve("work-" + n));
        workers.add(SparkDaemons.worker(url(), HOST, 1, "1200m", SparkDaemons.LOOPBACK, 0, workerSecret, work, log)
                .start());
        return log;
    }

    /** Starts {@code n} workers with the cluster's secret and waits until each has registered. */
    LocalCluster startWorkers(int n) throws IOException {
        List<Path> logs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            logs.add(startWorker(secret));
        }
        for (Path log : logs) {
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> read(log).contains("Successfully registered with master"));
        }
        return this;
    }

    /** Kills the master (as a machine that dies would: no goodbye). */
    void killMaster() {
        master.destroyForcibly();
    }

    long masterPid() {
        return master.pid();
    }

    /** The executor processes the workers started (children of the worker JVMs). */
    List<ProcessHandle> executors() {
        List<ProcessHandle> out = new ArrayList<>();
        for (Process w : workers) {
            w.toHandle()
                    .descendants()
                    .filter(p -> commandLine(p).contains("CoarseGrainedExecutorBackend"))
                    .forEach(out::add);
        }
        return out;
    }

    // ProcessHandle.Info leaves out long command lines; /proc has them whole
    private static String commandLine(ProcessHandle p) {
        try {
            return new String(
                    Files.readAllBytes(Path.of("/proc", String.valueOf(p.pid()), "cmdline")), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return p.info().commandLine().orElse("");
        }
    }

    static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private boolean masterListens() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(HOST, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (Process w : workers) {
            w.descendants().forEach(ProcessHandle::destroyForcibly);
            w.destroyForcibly();
        }
        if (master != null) {
            master.destroyForcibly();
        }
    }
}
