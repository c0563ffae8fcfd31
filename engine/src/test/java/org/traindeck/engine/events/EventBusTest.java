package org.traindeck.engine.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class EventBusTest {

    private static MetricEvent metric(long step) {
        return new MetricEvent("r", "s", 0, 0, step, 0, 0, "train/loss", step, null);
    }

    private static LifecycleEvent lifecycle(LifecycleEvent.Kind kind) {
        return new LifecycleEvent("r", "s", 0, 0, 0, 0, 0, kind, kind.name());
    }

    /** A listener that waits for {@code release} before it takes each event into {@code received}. */
    private static EventListener heldUntil(CountDownLatch release, List<EngineEvent> received) {
        return e -> {
            try {
                release.await();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            received.add(e);
        };
    }

    @Test
    void aLosslessListenerGetsEveryEventInOrder() {
        List<Long> steps = Collections.synchronizedList(new ArrayList<>());
        EventBus bus = new EventBus();
        bus.subscribe(e -> steps.add(((RunEvent) e).step()), EventBus.Delivery.LOSSLESS);
        for (long i = 0; i < 50_000; i++) {
            bus.publish(metric(i));
        }
        bus.close();

        assertThat(steps).hasSize(50_000);
        for (int i = 0; i < steps.size(); i++) {
            assertThat(steps.get(i)).isEqualTo(i);
        }
    }

    @Test
    void aStuckListenerNeitherBlocksThePublisherNorMissesLifecycleEvents() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        List<EngineEvent> received = Collections.synchronizedList(new ArrayList<>());
        EventBus bus = new EventBus();
        EventBus.Subscription slow =
                bus.subscribe(heldUntil(release, received), EventBus.Delivery.DROP_WHEN_BEHIND, 100);

        // the listener is blocked until every event is published: were publishing to wait on it, this would never end
        // (the bound guards against that hang; it is no speed target)
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            bus.publish(lifecycle(LifecycleEvent.Kind.RUN_STARTED));
            for (long i = 0; i < 100_000; i++) {
                bus.publish(metric(i));
            }
            bus.publish(lifecycle(LifecycleEvent.Kind.RUN_FINISHED));
        });
        release.countDown();
        bus.close();

        assertThat(slow.droppedCount()).isGreaterThan(99_000);
        assertThat(received).filteredOn(e -> e instanceof MetricEvent).hasSizeLessThanOrEqualTo(101);
        assertThat(received)
                .filteredOn(e -> e instanceof LifecycleEvent)
                .extracting(e -> ((LifecycleEvent) e).kind())
                .containsExactly(LifecycleEvent.Kind.RUN_STARTED, LifecycleEvent.Kind.RUN_FINISHED);
    }

    @Test
    void aThrowingListenerDoesNotStopDelivery() {
        List<Long> steps = Collections.synchronizedList(new ArrayList<>());
        EventBus bus = new EventBus();
        EventBus.Subscription s = bus.subscribe(
                e -> {
                    long step = ((RunEvent) e).step();
                    if (step % 2 == 0) {
                        throw new IllegalStateException("boom");
                    }
                    steps.add(step);
                },
                EventBus.Delivery.LOSSLESS);
        for (long i = 0; i < 10; i++) {
            bus.publish(metric(i));
        }
        bus.close();

        assertThat(steps).containsExactly(1L, 3L, 5L, 7L, 9L);
        assertThat(s.failureCount()).isEqualTo(5);
    }

    @Test
    void closeCallsOnCloseAfterTheLastEvent() {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        EventBus bus = new EventBus();
        bus.subscribe(
                new EventListener() {
                    @Override
                    public void onEvent(EngineEvent event) {
                        seen.add("event");
                    }

                    @Override
                    public void onClose() {
                        seen.add("close");
                    }
                },
                EventBus.Delivery.LOSSLESS);
        bus.publish(metric(1));
        bus.close();
        bus.publish(metric(2));

        assertThat(seen).containsExactly("event", "close");
    }

    @Test
    void eventsPublishedTogetherArriveInOrderAmongTheOthers() {
        List<Long> steps = Collections.synchronizedList(new ArrayList<>());
        EventBus bus = new EventBus();
        bus.subscribe(e -> steps.add(((RunEvent) e).step()), EventBus.Delivery.LOSSLESS);
        bus.subscribe(e -> {}, EventBus.Delivery.LOSSLESS);
        for (long i = 0; i < 3_000; i += 3) {
            bus.publish(metric(i));
            bus.publishAll(List.of(metric(i + 1), metric(i + 2)));
        }
        bus.publishAll(List.of());
        bus.close();

        assertThat(steps).hasSize(3_000);
        for (int i = 0; i < steps.size(); i++) {
            assertThat(steps.get(i)).isEqualTo(i);
        }
    }

    @Test
    void aListenerBehindSkipsMetricsPublishedTogetherButNoLifecycleEvent() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        List<EngineEvent> received = Collections.synchronizedList(new ArrayList<>());
        EventBus bus = new EventBus();
        EventBus.Subscription slow =
                bus.subscribe(heldUntil(release, received), EventBus.Delivery.DROP_WHEN_BEHIND, 10);
        List<EngineEvent> together = new ArrayList<>();
        for (long i = 0; i < 100; i++) {
            together.add(metric(i));
        }
        together.add(lifecycle(LifecycleEvent.Kind.RUN_FINISHED));
        bus.publishAll(together);
        release.countDown();
        bus.close();

        assertThat(slow.droppedCount()).isEqualTo(90);
        assertThat(received).hasSize(11);
        assertThat(received.get(9)).isEqualTo(metric(9));
        assertThat(received.get(10)).isInstanceOf(LifecycleEvent.class);
    }
}
