package org.traindeck.engine.api.queue;

/** How a queue went: the runs that ended each way in this session, and whether it was stopped. */
public record QueueOutcome(int finished, int failed, boolean stopped) {}
