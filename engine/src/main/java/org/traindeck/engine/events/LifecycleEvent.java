package org.traindeck.engine.events;

/** A change in the run's state, with a message for people (the failure's reason, for example). */
public record LifecycleEvent(
        String runName,
        String stage,
        int stageIndex,
        int epoch,
        long step,
        long wallTimeMillis,
        double elapsedSeconds,
        Kind kind,
        String message)
        implements RunEvent {

    public enum Kind {
        RUN_STARTED,
        RUN_RESUMED,
        STAGE_STARTED,
        TIER_STARTED,
        FALLBACK,
        EPOCH_FINISHED,
        CHECKPOINT_SAVED,
        STAGE_FINISHED,
        RUN_FINISHED,
        RUN_STOPPED,
        RUN_FAILED,
        WARNING,
        /** A file the run writes (a metric file, the run log, a checkpoint) could not be written: it is incomplete. */
        FILE_WRITE_FAILED,
        /** Steps after this event's step will be trained again (after a fallback from an inconsistent state): forget them. */
        REWIND,
        /** The model's starting weights were loaded (its {@code init}): the message says which tensors, and what was left. */
        WEIGHTS_LOADED
    }

    public boolean isTerminal() {
        return kind == Kind.RUN_FINISHED || kind == Kind.RUN_STOPPED || kind == Kind.RUN_FAILED;
    }
}
