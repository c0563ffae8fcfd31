package org.traindeck.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.traindeck.engine.api.Engine;
import org.traindeck.engine.parallel.DistributedSpec;
import org.traindeck.engine.parallel.ShardData;
import org.traindeck.engine.parallel.TierFailure;

/** An executor that runs another TrainDeck build than the driver's is refused at join, with both builds and its host named. */
class BuildIdentityTest {

    /** The session ends before any executor reads data. */
    private static final ShardData NO_DATA = new ShardData("{}", 0, 0, List.of());

    static final String FOREIGN = "TrainDeck 0.0.9 (engine 0123456789abcdef)";

    @TempDir
    static Path dir;

    private static LocalCluster cluster;

    @BeforeAll
    static void startCluster() throws IOException {
        cluster = new LocalCluster(dir);
        cluster.startMaster().startWorkers(1);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theBuildIsTheVersionAndAHashOfTheEngine() {
        assertThat(BuildIdentity.local())
                .matches("TrainDeck \\Q" + Engine.version() + "\\E \\(engine [0-9a-f]{16}\\)")
                .isSameAs(BuildIdentity.local());
    }

    @Test
    void anExecutorOfAnotherBuildIsRefusedAtJoin() {
        DistributedSpec spec = new DistributedSpec(
                cluster.url(), 1, "foreign-build", "{}", NO_DATA, false, false, cluster.secretFile, 90, 60, Map.of());
        assertThatThrownBy(() -> new SparkBackend(() -> FOREIGN).open(spec).close())
                .isInstanceOf(TierFailure.class)
                .hasMessageStartingWith(
                        "executor 0 on 127.0.0.1 runs " + FOREIGN + ", but this driver runs " + BuildIdentity.local())
                .hasMessageContaining("same TrainDeck build")
                .hasNoCause();
    }
}
