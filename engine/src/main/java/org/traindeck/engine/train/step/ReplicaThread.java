package org.traindeck.engine.train.step;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread of one replica, handed one task per call and waited on without an executor: the caller posts the task in
 * a field and the thread, spinning for a moment before it parks, picks it up; the caller spins for a moment on the
 * result before it parks too. A step of a short network (a LeNet at 32 images a worker: ~5 ms) hands work over twice,
 * and an executor's queue, futures and the kernel's wake-up of a parked thread (a halted virtual core) each time are
 * what the spinning saves where the other core is free; where it is not, the spin ends after {@link #SPIN_NANOS}.
 * One caller at a time.
 */
final class ReplicaThread implements AutoCloseable {

    /** How long each side spins before it parks: about two thread wake-ups, far less than any step. */
    static final long SPIN_NANOS = 100_000;

    private final Thread thread;
    private volatile Callable<?> task;
    private volatile Object result;
    private volatile Throwable failure;
    /** The number of tasks posted and finished; only the caller writes {@code posted}, only the thread {@code done}. */
    private volatile long posted;

    private volatile long done;
    private volatile Thread waiter;
    private volatile boolean closed;

    /** @param onStart what the thread does once, before its first task (binding itself to its device) */
    ReplicaThread(String name, Runnable onStart) {
        thread = new Thread(
                () -> {
                    Throwable broken = null;
                    try {
                        onStart.run();
                    } catch (RuntimeException | Error e) {
                        // every task then fails with it: the caller learns why, as from a task
                        broken = e;
                    }
                    loop(broken);
                },
                name);
        thread.setDaemon(true);
        thread.start();
    }

    /** Hands the thread its next task; the previous one must have been awaited. */
    void post(Callable<?> next) {
        if (closed) {
            throw new IllegalStateException(thread.getName() + " is closed");
        }
        task = next;
        result = null;
        failure = null;
        posted = posted + 1;
        LockSupport.unpark(thread);
    }

    /** The posted task's result; its failure as the cause of an {@link ExecutionException}. */
    Object await() throws ExecutionException, InterruptedException {
        long target = posted;
        long spinUntil = System.nanoTime() + SPIN_NANOS;
        while (done != target && System.nanoTime() < spinUntil) {
            Thread.onSpinWait();
        }
        if (done != target) {
            waiter = Thread.currentThread();
            while (done != target) {
                if (Thread.interrupted()) {
                    waiter = null;
                    throw new InterruptedException();
                }
                if (!thread.isAlive()) {
                    throw new ExecutionException(new IllegalStateException(thread.getName() + " has stopped"));
                }
                // timed: a thread that died outside a task (its device binding failed) would never wake the caller
                LockSupport.parkNanos(this, 10_000_000L);
            }
            waiter = null;
        }
        if (failure != null) {
            throw new ExecutionException(failure);
        }
        return result;
    }

    private void loop(Throwable broken) {
        long seen = 0;
        while (true) {
            long spinUntil = System.nanoTime() + SPIN_NANOS;
            while (posted == seen && !closed && System.nanoTime() < spinUntil) {
                Thread.onSpinWait();
            }
            while (posted == seen && !closed) {
                LockSupport.park(this);
            }
            if (closed) {
                return;
            }
            seen = posted;
            if (broken == null) {
                run(task);
            } else {
                result = null;
                failure = broken;
            }
            done = seen;
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }
    }

    private void run(Callable<?> current) {
        try {
            result = current.call();
        } catch (Throwable e) {
            // handed to the caller, which fails the step (and the tier) with it
            failure = e;
        }
    }

    /** The thread's state (tests: whether it has parked, whether it has ended). */
    Thread.State state() {
        return thread.getState();
    }

    /** Stops the thread once its current task (if any) ends. */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(thread);
    }
}
