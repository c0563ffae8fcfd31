package org.traindeck.engine.train.step;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ReplicaThreadTest {

    @Test
    void runsEachPostedTaskOnceOnItsOwnThreadAndHandsBackWhatItWrote() throws Exception {
        AtomicReference<Thread> started = new AtomicReference<>();
        try (ReplicaThread replica = new ReplicaThread("replica-test", () -> started.set(Thread.currentThread()))) {
            int[] written = new int[64];
            for (int round = 0; round < 2_000; round++) {
                int r = round;
                replica.post(() -> {
                    // plain writes: the caller must see them after await, as it sees a future's
                    written[r % written.length] = r;
                    return Thread.currentThread();
                });
                Object ranOn = replica.await();
                assertThat(ranOn).isSameAs(started.get()).isNotSameAs(Thread.currentThread());
                assertThat(written[r % written.length]).isEqualTo(r);
            }
        }
    }

    @Test
    void aTaskPostedAfterTheThreadParkedStillRuns() throws Exception {
        try (ReplicaThread replica = new ReplicaThread("replica-test", () -> {})) {
            for (int round = 0; round < 3; round++) {
                await().atMost(Duration.ofSeconds(30)).until(() -> replica.state() == Thread.State.WAITING);
                int r = round;
                replica.post(() -> r * 2);
                assertThat(replica.await()).isEqualTo(r * 2);
            }
        }
    }

    @Test
    void aFailingTaskReachesTheCallerAsTheCauseAndTheThreadGoesOn() throws Exception {
        try (ReplicaThread replica = new ReplicaThread("replica-test", () -> {})) {
            replica.post(() -> {
                throw new IllegalStateException("replica broke");
            });
            assertThatThrownBy(replica::await)
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("replica broke");
            replica.post(() -> "after");
            assertThat(replica.await()).isEqualTo("after");
        }
    }

    @Test
    void aThreadThatCouldNotBindItselfFailsEachTaskWithWhy() {
        try (ReplicaThread replica = new ReplicaThread("replica-test", () -> {
            throw new IllegalStateException("no such device");
        })) {
            for (int round = 0; round < 2; round++) {
                replica.post(() -> "never");
                assertThatThrownBy(replica::await)
                        .isInstanceOf(ExecutionException.class)
                        .cause()
                        .hasMessage("no such device");
            }
        }
    }

    @Test
    void closingEndsTheThread() {
        ReplicaThread replica = new ReplicaThread("replica-test", () -> {});
        replica.close();
        await().atMost(Duration.ofSeconds(30)).until(() -> replica.state() == Thread.State.TERMINATED);
        assertThatThrownBy(() -> replica.post(() -> "late")).isInstanceOf(IllegalStateException.class);
    }
}
