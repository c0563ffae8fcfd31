package org.traindeck.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.TierFailure;

/** The master refuses a worker and a driver that hold the wrong secret; a secret others can read is refused too. */
class ClusterSecretTest {

    /** These sessions end before any executor reads data. */
    private static final ShardData NO_DATA = new ShardData("{}", 0, 0, List.of());

    @TempDir
    static Path dir;

    private static LocalCluster cluster;

    @BeforeAll
    static void startMaster() throws IOException {
        cluster = new LocalCluster(dir);
        cluster.startMaster();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theSecretFileIsTheOwnersAlone() throws IOException {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cluster.secretFile)))
                .isEqualTo("rw-------");
        Path shared = dir.resolve("shared-secret");
        ClusterSecret.generate(shared);
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> ClusterSecret.read(shared))
                .hasMessageContaining("can be read by other users")
                .hasMessageContaining("chmod 600");
    }

    @Test
    void aWorkerWithTheWrongSecretIsRefused() throws IOException {
        Path log = cluster.startWorker("0123456789abcdef-not-the-secret");
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> LocalCluster.read(log).contains("Failed to connect to master"));
        assertThat(LocalCluster.read(log)).doesNotContain("Successfully registered");
        assertThat(LocalCluster.read(dir.resolve("master.log"))).doesNotContain("Registering worker");
    }

    @Test
    void aDriverWithTheWrongSecretIsRefusedAtOnceWithTheMasterNamed() throws IOException {
        Path wrong = dir.resolve("wrong-secret");
        ClusterSecret.generate(wrong);
        DistributedSpec spec = new DistributedSpec(
                cluster.url(), 2, "wrong-secret", "{}", NO_DATA, false, false, wrong, 30, 30, Map.of());
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> new SparkBackend().open(spec))
                .isInstanceOf(TierFailure.class)
                .hasMessageContaining("127.0.0.1:" + cluster.port)
                .hasMessageContaining("refused this driver");
        assertThat((System.nanoTime() - t0) / 1e9).as("seconds to refuse").isLessThan(30);
    }

    @Test
    void aDriverFacingNoMasterIsToldSo() throws IOException {
        DistributedSpec spec = new DistributedSpec(
                "spark://127.0.0.1:1", 2, "nothing", "{}", NO_DATA, false, false, cluster.secretFile, 30, 30, Map.of());
        assertThatThrownBy(() -> new SparkBackend().open(spec))
                .isInstanceOf(TierFailure.class)
                .hasMessageContaining("nothing answers at 127.0.0.1:1");
    }

    @Test
    void executorsThatNeverJoinAreSaidSoWithinTheJoinTimeout() throws IOException {
        DistributedSpec spec = new DistributedSpec(
                cluster.url(), 1, "no-workers", "{}", NO_DATA, false, false, cluster.secretFile, 5, 30, Map.of());
        assertThatThrownBy(() -> new SparkBackend().open(spec))
                .isInstanceOf(TierFailure.class)
                .hasMessageContaining("only 0 of 1 executor(s) joined within 5 s")
                .hasMessageContaining("traindeck cluster worker " + cluster.url());
    }
}
