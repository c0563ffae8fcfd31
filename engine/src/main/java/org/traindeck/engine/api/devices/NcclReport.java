package org.traindeck.engine.api.devices;

import java.util.List;

/** What became of each NCCL toggle and custom variable. */
public record NcclReport(List<Entry> entries) {

    public enum Status {
        /** In the process environment before ND4J loaded; native code reads it from there. */
        APPLIED,
        /** Applied, and also mapped to a DL4J equivalent. */
        MAPPED,
        /** Set now, but ND4J (and CUDA) were already loaded in this process: takes full effect after a restart. */
        NEEDS_RESTART,
        /** Could not be set (the reason says why). */
        FAILED
    }

    /** One variable: its value, what happened, and an explanation for people. */
    public record Entry(String name, String value, Status status, String detail) {}

    public NcclReport {
        entries = List.copyOf(entries);
    }

    public Entry get(String name) {
        return entries.stream().filter(e -> e.name().equals(name)).findFirst().orElse(null);
    }
}
