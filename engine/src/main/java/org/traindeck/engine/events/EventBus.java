package org.traindeck.engine.events;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers engine events to listeners without ever making the publisher (the training loop) wait. Each listener has
 * its own queue and delivery thread. A {@link Delivery#LOSSLESS} listener (a file sink) gets every event; a
 * {@link Delivery#DROP_WHEN_BEHIND} listener (a UI) drops metric events once it is {@code capacity} behind, but
 * never a lifecycle event.
 */
public final class EventBus implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);
    private static final EngineEvent END =
            new LifecycleEvent("", "", 0, 0, 0, 0, 0, LifecycleEvent.Kind.WARNING, "end");

    public enum Delivery {
        LOSSLESS,
        DROP_WHEN_BEHIND
    }

    private final List<Subscription> subscriptions = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /** A listener's place on the bus. */
    public static final class Subscription {
        private final EventListener listener;
        private final Delivery delivery;
        private final int capacity;
        // an event, or an EngineEvent[] published together
        private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
        private final AtomicInteger pendingMetrics = new AtomicInteger();
        private final AtomicLong dropped = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();
        private final Thread thread;

        private Subscription(EventListener listener, Delivery delivery, int capacity, String name) {
            this.listener = listener;
            this.delivery = delivery;
            this.capacity = capacity;
            this.thread = new Thread(this::deliver, "traindeck-events-" + name);
            this.thread.setDaemon(true);
        }

        private void offer(EngineEvent event) {
            if (admits(event)) {
                queue.offer(event);
            }
        }

        /** False for a metric this listener skips because it is behind; counts the metrics it takes. */
        private boolean admits(EngineEvent event) {
            if (droppable(event)) {
                if (delivery == Delivery.DROP_WHEN_BEHIND && pendingMetrics.get() >= capacity) {
                    dropped.incrementAndGet();
                    return false;
                }
                pendingMetrics.incrementAndGet();
            }
            return true;
        }

        /** The events as one entry of the queue (those a listener that is behind skips left out). */
        private void offerAll(List<? extends EngineEvent> events) {
            List<EngineEvent> kept = new ArrayList<>(events.size());
            for (EngineEvent event : events) {
                if (admits(event)) {
                    kept.add(event);
                }
            }
            if (!kept.isEmpty()) {
                queue.offer(kept.toArray(new EngineEvent[0]));
            }
        }

        private void deliver() {
            try {
                while (true) {
                    Object item = queue.take();
                    if (item == END) {
                        break;
                    }
                    if (item instanceof EngineEvent[] together) {
                        for (EngineEvent event : together) {
                            deliverOne(event);
                        }
                    } else {
                        deliverOne((EngineEvent) item);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                try {
                    listener.onClose();
                } catch (RuntimeException e) {
                    LOG.warn("event listener {} failed to close", listener, e);
                }
            }
        }

        private void deliverOne(EngineEvent event) {
            if (droppable(event)) {
                pendingMetrics.decrementAndGet();
            }
            try {
                listener.onEvent(event);
            } catch (RuntimeException e) {
                if (failures.getAndIncrement() == 0) {
                    LOG.warn("event listener {} failed; training goes on", listener, e);
                }
            }
        }

        /** A run's metrics and device figures may be skipped by a listener that is behind; nothing else. */
        private static boolean droppable(EngineEvent event) {
            return event instanceof MetricEvent
                    || (event instanceof TelemetryEvent t && t.kind() == TelemetryEvent.Kind.FIGURE);
        }

        /** Metric events (and device figures) this listener missed because it was behind. */
        public long droppedCount() {
            return dropped.get();
        }

        /** Events whose delivery threw. */
        public long failureCount() {
            return failures.get();
        }
    }

    public Subscription subscribe(EventListener listener, Delivery delivery) {
        return subscribe(listener, delivery, 10_000);
    }

    public Subscription subscribe(EventListener listener, Delivery delivery, int capacity) {
        if (closed) {
            throw new IllegalStateException("the event bus is closed");
        }
        Subscription s = new Subscription(listener, delivery, capacity, String.valueOf(subscriptions.size()));
        subscriptions.add(s);
        s.thread.start();
        return s;
    }

    /**
     * Queues the events, in order, for every listener as one entry: a listener's thread wakes once for them, not once
     * for each (a step's metrics: the publisher's signal to a waiting thread costs microseconds each). Returns at once.
     */
    public void publishAll(List<? extends EngineEvent> events) {
        if (closed || events.isEmpty()) {
            return;
        }
        for (Subscription s : subscriptions) {
            s.offerAll(events);
        }
    }

    /** Queues the event for every listener; returns at once. */
    public void publish(EngineEvent event) {
        if (closed) {
            return;
        }
        for (Subscription s : subscriptions) {
            s.offer(event);
        }
    }

    /** Delivers what is queued, then ends each listener (at most {@code timeoutMillis} per listener). */
    public void close(long timeoutMillis) {
        if (closed) {
            return;
        }
        closed = true;
        for (Subscription s : subscriptions) {
            s.queue.offer(END);
        }
        for (Subscription s : subscriptions) {
            try {
                s.thread.join(timeoutMillis);
                if (s.thread.isAlive()) {
                    LOG.warn("event listener {} did not finish within {} ms", s.listener, timeoutMillis);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        close(TimeUnit.SECONDS.toMillis(30));
    }
}
