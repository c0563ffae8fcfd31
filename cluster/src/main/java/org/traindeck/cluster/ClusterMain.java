package org.traindeck.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code traindeck cluster master|worker}: Spark's own standalone daemons from TrainDeck's class path, with the
 * shared secret and RPC encryption on, bound to the interface the user names (127.0.0.1 unless told otherwise).
 * Each runs in the foreground until Ctrl-C, which stops its daemon (and a worker's executors) with it.
 */
@Command(
        name = "traindeck cluster",
        mixinStandardHelpOptions = true,
        subcommands = {ClusterMain.Master.class, ClusterMain.Worker.class},
        description = "Run a Spark standalone cluster for traindeck train --cluster spark://HOST:7077.")
public final class ClusterMain implements Callable<Integer> {

    static final int INVALID_INPUT = 2;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ClusterMain()).setUsageHelpWidth(110).execute(args));
    }

    @Override
    public Integer call() {
        new CommandLine(this).usage(System.out);
        return INVALID_INPUT;
    }

    @Command(
            name = "master",
            mixinStandardHelpOptions = true,
            description = "Start a master; it generates the cluster's secret on first use.")
    static final class Master implements Callable<Integer> {
        @Option(
                names = "--host",
                defaultValue = "127.0.0.1",
                description = "the interface to listen on (default ${DEFAULT-VALUE}: this machine only;"
                        + " name the address workers on other machines reach)")
        String host;

        @Option(names = "--port", defaultValue = "7077", description = "RPC port (default ${DEFAULT-VALUE})")
        int port;

        @Option(
                names = "--webui-host",
                defaultValue = SparkDaemons.LOOPBACK,
                description = "the interface of the web UI (default ${DEFAULT-VALUE}:"
                        + " this machine only; it is not authenticated)")
        String webUiHost;

        @Option(names = "--webui-port", defaultValue = "8080", description = "web UI port (default ${DEFAULT-VALUE})")
        int webUiPort;

        @Option(
                names = "--secret-file",
                description = "where the secret is kept (default ~/.local/share/traindeck/cluster/secret)")
        Path secretFile;

        @Option(
                names = "--new-secret",
                description = "replace the secret (every worker and driver then needs the new file)")
        boolean newSecret;

        @Override
        public Integer call() throws Exception {
            Path file = secretFile != null ? secretFile : ClusterSecret.defaultFile();
            String secret;
            boolean generated = newSecret || !Files.exists(file);
            try {
                secret = generated ? ClusterSecret.generate(file) : ClusterSecret.read(file);
            } catch (IllegalArgumentException e) {
                System.err.println("traindeck cluster master: " + e.getMessage());
                return INVALID_INPUT;
            }
            Path log = logFile("master");
            Process daemon = SparkDaemons.master(host, port, webUiHost, webUiPort, secret, log)
                    .start();
            String url = "spark://" + host + ":" + port;
            if (!listening(daemon, host, port)) {
                System.err.println("traindeck cluster master: the master did not start listening on " + host + ":"
                        + port + " (is the port taken, or the address not this machine's?); its log: " + log);
                daemon.destroyForcibly();
                return 1;
            }
            System.out.println(
                    "master listening on " + url + " (RPC: authenticated with the shared secret, encrypted)");
            System.out.println("web UI on http://" + webUiHost + ":" + webUiPort
                    + " (read-only: its kill links are off; not authenticated:" + " keep it off untrusted networks)");
            System.out.println("secret " + (generated ? "generated in " : "read from ") + file
                    + " (readable by you only); copy it to each worker and"
                    + " driver machine, readable by that user only");
            System.out.println("workers:  traindeck cluster worker " + url + " --secret-file " + file);
            System.out.println("training: traindeck train CONFIG --cluster " + url);
            System.out.println("log: " + log + "; Ctrl-C stops the master");
            return waitFor(daemon);
        }
    }

    @Command(
            name = "worker",
            mixinStandardHelpOptions = true,
            description = "Start a worker that offers this machine's cores to a master.")
    static final class Worker implements Callable<Integer> {
        @Parameters(paramLabel = "spark://HOST:7077", description = "the master")
        String master;

        @Option(
                names = "--host",
                defaultValue = "127.0.0.1",
                description = "the interface to listen on and to be reached at (default ${DEFAULT-VALUE})")
        String host;

        @Option(
                names = "--cores",
                defaultValue = "1",
                description = "cores to offer: one executor per core (default ${DEFAULT-VALUE})")
        int cores;

        @Option(
                names = "--memory",
                defaultValue = "2g",
                description = "memory to offer (default ${DEFAULT-VALUE}; each executor takes 1g)")
        String memory;

        @Option(
                names = "--webui-host",
                defaultValue = SparkDaemons.LOOPBACK,
                description = "the interface of the web UI (default ${DEFAULT-VALUE}:"
                        + " this machine only; it is not authenticated)")
        String webUiHost;

        @Option(names = "--webui-port", defaultValue = "8081", description = "web UI port (default ${DEFAULT-VALUE})")
        int webUiPort;

        @Option(
                names = "--secret-file",
                description = "a copy of the master's secret (default ~/.local/share/traindeck/cluster/secret)")
        Path secretFile;

        @Override
        public Integer call() throws Exception {
            if (!master.matches("spark://[^\\s/]+:\\d{1,5}")) {
                System.err.println(
                        "traindeck cluster worker: \"" + master + "\" is not a master address (spark://HOST:7077)");
                return INVALID_INPUT;
            }
            String secret;
            try {
                secret = ClusterSecret.read(secretFile != null ? secretFile : ClusterSecret.defaultFile());
            } catch (IllegalArgumentException e) {
                System.err.println("traindeck cluster worker: " + e.getMessage());
                return INVALID_INPUT;
            }
            Path log = logFile("worker");
            Path work = Files.createDirectories(log.getParent().resolve("work"));
            Process daemon = SparkDaemons.worker(master, host, cores, memory, webUiHost, webUiPort, secret, work, log)
                    .start();
            System.out.println("worker on " + host + " (" + cores + " core(s), " + memory + ") joining " + master
                    + "; log: " + log);
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (daemon.isAlive() && System.nanoTime() < deadline) {
                String text = Files.exists(log) ? Files.readString(log) : "";
                if (text.contains("Successfully registered with master")) {
                    System.out.println("registered with " + master + "; Ctrl-C stops the worker and its executors");
                    return waitFor(daemon);
                }
                Thread.sleep(200);
            }
            System.err.println("traindeck cluster worker: not registered with " + master
                    + " within 60 s: a wrong secret, a master that is" + " not running or not reachable from " + host
                    + "; see " + log);
            daemon.descendants().forEach(ProcessHandle::destroyForcibly);
            daemon.destroyForcibly();
            return 1;
        }
    }

    private static Path logFile(String role) throws IOException {
        Path dir = ClusterSecret.defaultFile().getParent().resolve("logs");
        Files.createDirectories(dir);
        return dir.resolve(role + "-" + ProcessHandle.current().pid() + ".log");
    }

    private static boolean listening(Process daemon, String host, int port) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (daemon.isAlive() && System.nanoTime() < deadline) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 500);
                return true;
            } catch (IOException e) {
                Thread.sleep(200);
            }
        }
        return false;
    }

    /** Runs until the daemon ends; Ctrl-C ends the daemon and its children first. */
    private static int waitFor(Process daemon) throws InterruptedException {
        Thread stop = new Thread(
                () -> {
                    daemon.descendants().forEach(ProcessHandle::destroy);
                    daemon.destroy();
                },
                "traindeck-cluster-stop");
        Runtime.getRuntime().addShutdownHook(stop);
        return daemon.waitFor();
    }
}
