package org.traindeck.engine.events;

/** Receives engine events on its own delivery thread, in the order they were published. */
@FunctionalInterface
public interface EventListener {

    void onEvent(EngineEvent event);

    /** Called once after the last event (the run ended and everything queued was delivered). */
    default void onClose() {}
}
