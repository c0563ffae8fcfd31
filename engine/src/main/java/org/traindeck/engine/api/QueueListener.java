package org.traindeck.engine.api;

import org.traindeck.engine.api.queue.QueueEntry;
import org.traindeck.engine.api.runs.RunResult;

/** Hears of each run of a queue, on the queue's own thread. */
public interface QueueListener {

    /** A run is about to train: subscribe to it now to see every event. {@code resumed}: it continues a checkpoint. */
    void starting(QueueEntry entry, RunHandle run, boolean resumed);

    /** A run ended, or could not start ({@code result} null; the entry's message says why). */
    void ended(QueueEntry entry, RunResult result);
}
