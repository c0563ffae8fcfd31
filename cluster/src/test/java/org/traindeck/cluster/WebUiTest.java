package org.traindeck.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.ShardData;

/**
 * Spark's web UIs are not authenticated: a master's UI listens on the loopback address even when its RPC listens on
 * another interface, and its kill links (a POST to /app/kill ends a training run) are off; so are the driver's.
 */
class WebUiTest {

    @TempDir
    Path dir;

    private Process master;

    @AfterEach
    void stop() {
        if (master != null) {
            master.destroyForcibly();
        }
    }

    @Test
    void theMastersUiListensOnTheLoopbackOnlyAndCannotKill() throws IOException {
        String rpcHost = nonLoopbackAddress().orElse(LocalCluster.HOST);
        int port = freePort();
        int uiPort = freePort();
        String secret = ClusterSecret.generate(dir.resolve("secret"));
        master = SparkDaemons.master(rpcHost, port, SparkDaemons.LOOPBACK, uiPort, secret, dir.resolve("master.log"))
                .start();
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> listens(SparkDaemons.LOOPBACK, uiPort));
        assertThat(listens(rpcHost, port)).as("the RPC on " + rpcHost).isTrue();

        ShardData none = new ShardData("{}", 0, 0, List.of());
        DistributedSpec spec = new DistributedSpec(
                "spark://" + rpcHost + ":" + port,
                1,
                "ui-kill",
                "{}",
                none,
                false,
                false,
                dir.resolve("secret"),
                30,
                30,
                Map.of());
        SparkConf conf = SparkDriver.conf(spec, secret, MasterProbe.localAddressTowards(rpcHost, port));
        JavaSparkContext driver = new JavaSparkContext(conf);
        try {
            HttpURLConnection kill = (HttpURLConnection) new URL("http://127.0.0.1:" + uiPort + "/app/kill/?id="
                            + driver.sc().applicationId() + "&terminate=true")
                    .openConnection();
            kill.setRequestMethod("POST");
            kill.setInstanceFollowRedirects(false);
            kill.getResponseCode();
            // an enabled kill link ends the application within milliseconds; this one must not
            await().during(Duration.ofSeconds(3))
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> !driver.sc().isStopped());
        } finally {
            driver.stop();
            ClusterEvents.forget(conf.get("spark.app.name"));
        }

        assumeThat(rpcHost)
                .as("a non-loopback interface to check that the UI is not on it")
                .isNotEqualTo(LocalCluster.HOST);
        assertThatThrownBy(() -> new Socket(rpcHost, uiPort).close()).isInstanceOf(ConnectException.class);
    }

    @Test
    void theDriversUiIsOffAndCannotKill() {
        ShardData none = new ShardData("{}", 0, 0, List.of());
        DistributedSpec spec = new DistributedSpec(
                "spark://127.0.0.1:7077", 1, "ui", "{}", none, false, false, dir.resolve("secret"), 30, 30, Map.of());
        SparkConf conf = SparkDriver.conf(spec, "s", LocalCluster.HOST);
        assertThat(conf.get("spark.ui.enabled")).isEqualTo("false");
        assertThat(conf.get("spark.ui.killEnabled")).isEqualTo("false");
        DistributedSpec asked = new DistributedSpec(
                "spark://127.0.0.1:7077",
                1,
                "ui",
                "{}",
                none,
                false,
                false,
                dir.resolve("secret"),
                30,
                30,
                Map.of("spark.ui.enabled", "true"));
        assertThat(SparkDriver.conf(asked, "s", LocalCluster.HOST).get("spark.ui.enabled"))
                .isEqualTo("true");
    }

    private static Optional<String> nonLoopbackAddress() throws SocketException {
        for (NetworkInterface ni : NetworkInterface.networkInterfaces().toList()) {
            if (!ni.isUp() || ni.isLoopback()) {
                continue;
            }
            for (InetAddress a : ni.inetAddresses().toList()) {
                if (a instanceof Inet4Address && !a.isLinkLocalAddress()) {
                    return Optional.of(a.getHostAddress());
                }
            }
        }
        return Optional.empty();
    }

    private static boolean listens(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 500);
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
}
