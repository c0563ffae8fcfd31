package org.traindeck.engine.api.queue;

import java.nio.file.Path;

/**
 * One run waiting in (or done with) a queue.
 *
 * @param id      unique in its queue, in the order added
 * @param label   what the user calls it: the config's name, or the sweep trial ("lr-sweep-2")
 * @param source  the config file it was added from (null for a sweep trial)
 * @param config  the config as it was when added, with absolute paths: later edits of the file do not change it
 * @param runDir  the run's folder once it has one (a resume continues there)
 * @param message how it ended, or why it failed
 */
public record QueueEntry(
        int id, String label, String source, String config, Status status, Path runDir, String message) {

    public enum Status {
        PENDING,
        RUNNING,
        FINISHED,
        INCOMPLETE,
        STOPPED,
        FAILED;

        /** Done with: the queue does not run it again. */
        public boolean isDone() {
            return this == FINISHED || this == INCOMPLETE || this == FAILED;
        }
    }

    public QueueEntry with(Status newStatus, Path newRunDir, String newMessage) {
        return new QueueEntry(id, label, source, config, newStatus, newRunDir, newMessage);
    }
}
