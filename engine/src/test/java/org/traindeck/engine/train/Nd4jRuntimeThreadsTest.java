package org.traindeck.engine.train;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.factory.Nd4j;

/** CPU workers share the process's native threads instead of each taking all of them. */
class Nd4jRuntimeThreadsTest {

    @AfterEach
    void wholeBudgetBack() {
        Nd4jRuntime.shareThreads(1);
    }

    @Test
    void theBudgetIsDividedBetweenWorkersAndNeverBelowOne() {
        assertThat(Nd4jRuntime.threadsPerWorker(16, 1)).isEqualTo(16);
        assertThat(Nd4jRuntime.threadsPerWorker(16, 4)).isEqualTo(4);
        assertThat(Nd4jRuntime.threadsPerWorker(64, 6)).isEqualTo(10);
        assertThat(Nd4jRuntime.threadsPerWorker(2, 2)).isEqualTo(1);
        assertThat(Nd4jRuntime.threadsPerWorker(2, 8)).isEqualTo(1);
    }

    @Test
    void sharingSetsNd4jsOpsAndOpenBlasAndOneWorkerGetsTheWholeBudgetBack() {
        int budget = Nd4jRuntime.threadBudget();
        int each = Nd4jRuntime.shareThreads(2);
        assertThat(each).isEqualTo(Math.max(1, budget / 2));
        assertThat(Nd4j.getEnvironment().maxThreads()).isEqualTo(each);
        assertThat(Nd4j.factory().blas().getMaxThreads()).isEqualTo(each);
        assertThat(Nd4jRuntime.shareThreads(1)).isEqualTo(budget);
        assertThat(Nd4j.getEnvironment().maxThreads()).isEqualTo(budget);
        assertThat(Nd4j.factory().blas().getMaxThreads()).isEqualTo(budget);
    }
}
