package org.traindeck.engine.checkpoint;

import java.io.IOException;

/**
 * The seam for making a checkpoint write fail or slow down, for tests of crash safety; production writes use
 * {@link #NONE}. {@link CheckpointFiles#write} calls it as the file is being written, never after it is in place.
 */
public interface CheckpointWriteHook {

    /** Nothing happens. */
    CheckpointWriteHook NONE = new CheckpointWriteHook() {};

    /** The manifest is written, the data entries come next: throwing here is a write that fails halfway. */
    default void beforeData(Checkpoint checkpoint) throws IOException {}

    /** A data entry was written, the next one (or the end of the file) comes next. */
    default void afterEntry(String entry) {}
}
