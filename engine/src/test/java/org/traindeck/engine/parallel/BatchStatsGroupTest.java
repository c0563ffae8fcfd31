package org.traindeck.engine.parallel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.traindeck.engine.model.kernels.conv.BatchStatsExchange;

/** The replicas' meeting point: pooled statistics, rounds with fewer replicas, and failure instead of a hang. */
class BatchStatsGroupTest {

    @Test
    void theForwardPoolsCountsMeansAndVariancesAsOneBatchWould() throws Exception {
        // replica 0: {1, 2, 3}, replica 1: {10, 20}; together: mean 7.2, biased variance 50.96
        BatchStatsGroup group = new BatchStatsGroup(2, Duration.ofSeconds(30));
        group.beginStep(new int[] {1, 1});
        CompletableFuture<double[]> other = CompletableFuture.supplyAsync(
                () -> group.member(1).forward("bn", 2, new double[] {15}, new double[] {25}));
        double[] mine = group.member(0).forward("bn", 3, new double[] {2}, new double[] {2.0 / 3});
        assertThat(mine[0]).isEqualTo(5);
        assertThat(mine[1]).isCloseTo(7.2, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(mine[2]).isCloseTo(50.96, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(other.get(10, TimeUnit.SECONDS)).containsExactly(mine);

        CompletableFuture<double[]> sums =
                CompletableFuture.supplyAsync(() -> group.member(1).backward("bn", new double[] {1, 2}));
        assertThat(group.member(0).backward("bn", new double[] {0.5, 4})).containsExactly(1.5, 6);
        assertThat(sums.get(10, TimeUnit.SECONDS)).containsExactly(1.5, 6);
        group.endStep();
        assertThat(group.member(0).active()).isFalse();
    }

    @Test
    void aRoundThatOnlyTheFirstReplicasHaveIsExchangedAmongThem() throws Exception {
        BatchStatsGroup group = new BatchStatsGroup(3, Duration.ofSeconds(30));
        // a short last step: replicas 0 and 1 have two micro-batches, replica 2 one
        group.beginStep(new int[] {2, 2, 1});
        CompletableFuture<double[]> r1 = CompletableFuture.supplyAsync(() -> {
            group.enterRound(1, 0);
            group.member(1).backward("bn", new double[] {2});
            group.enterRound(1, 1);
            return group.member(1).backward("bn", new double[] {20});
        });
        CompletableFuture<double[]> r2 = CompletableFuture.supplyAsync(() -> {
            group.enterRound(2, 0);
            return group.member(2).backward("bn", new double[] {3});
        });
        group.enterRound(0, 0);
        assertThat(group.member(0).backward("bn", new double[] {1})).containsExactly(6);
        group.enterRound(0, 1);
        assertThat(group.member(0).backward("bn", new double[] {10})).containsExactly(30);
        assertThat(r1.get(10, TimeUnit.SECONDS)).containsExactly(30);
        assertThat(r2.get(10, TimeUnit.SECONDS)).containsExactly(6);
    }

    @Test
    void aReplicaThatFailsReleasesTheOnesWaitingForIt() {
        BatchStatsGroup group = new BatchStatsGroup(2, Duration.ofMinutes(5));
        group.beginStep(new int[] {1, 1});
        CompletableFuture<double[]> waiting =
                CompletableFuture.supplyAsync(() -> group.member(0).backward("bn", new double[] {1}));
        group.abort(new IllegalStateException("out of memory on replica 1"));
        assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasMessageContaining("another replica of this step failed")
                .hasMessageContaining("out of memory on replica 1");
    }

    @Test
    void aReplicaThatNeverComesFailsTheStepAfterTheTimeout() {
        BatchStatsGroup group = new BatchStatsGroup(2, Duration.ofMillis(200));
        group.beginStep(new int[] {1, 1});
        BatchStatsExchange alone = group.member(0);
        assertThatThrownBy(() -> alone.forward("block0_bn1", 4, new double[] {0}, new double[] {1}))
                .hasMessageContaining("waited")
                .hasMessageContaining("forward exchange of layer block0_bn1")
                .hasMessageContaining("replica(s) 1");
        // the next step starts clean
        group.beginStep(new int[] {1, 0});
        assertThat(alone.backward("bn", new double[] {2})).containsExactly(2);
    }

    @Test
    void replicasAtDifferentLayersAreOutOfStepNotCombined() {
        BatchStatsGroup group = new BatchStatsGroup(2, Duration.ofSeconds(30));
        group.beginStep(new int[] {1, 1});
        CompletableFuture<double[]> other =
                CompletableFuture.supplyAsync(() -> group.member(1).backward("bn1", new double[] {1}));
        assertThatThrownBy(() -> group.member(0).backward("bn0", new double[] {1}))
                .hasMessageContaining("out of step");
        assertThatThrownBy(() -> other.get(30, TimeUnit.SECONDS)).hasMessageContaining("out of step");
    }
}
