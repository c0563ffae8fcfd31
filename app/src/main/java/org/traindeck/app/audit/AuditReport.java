package org.traindeck.app.audit;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a layout audit looked at and what it found, by kind of defect: how many things were checked for each kind, so
 * that a clean report says what was looked at, and each defect once, as a line naming where it is.
 */
public final class AuditReport {

    /** The kinds of defect the audit looks for. */
    public enum Kind {
        /** A control cut off by its parent or the window, or out of view with no scroll bar that reaches it. */
        CLIPPED("clipped"),
        /** A label, button or cell whose text is cut to "…". */
        ELLIPSIZED("ellipsized"),
        /** A node drawn over a sibling it does not belong to. */
        OVERLAPPING("overlapping"),
        /** A text or a chart's series with less than 3:1 contrast to what it is drawn on. */
        CONTRAST("contrast");

        final String word;

        Kind(String word) {
            this.word = word;
        }
    }

    private final Map<Kind, Integer> checked = new EnumMap<>(Kind.class);
    private final Map<Kind, Set<String>> defects = new EnumMap<>(Kind.class);

    public AuditReport() {
        for (Kind k : Kind.values()) {
            checked.put(k, 0);
            defects.put(k, new LinkedHashSet<>());
        }
    }

    void checked(Kind kind) {
        checked.merge(kind, 1, Integer::sum);
    }

    void defect(Kind kind, String where) {
        defects.get(kind).add(where);
    }

    /** Adds another audit's counts and defects to this one's. */
    public AuditReport add(AuditReport other) {
        for (Kind k : Kind.values()) {
            checked.merge(k, other.checked.get(k), Integer::sum);
            defects.get(k).addAll(other.defects.get(k));
        }
        return this;
    }

    public int checkedCount(Kind kind) {
        return checked.get(kind);
    }

    public List<String> defects(Kind kind) {
        return List.copyOf(defects.get(kind));
    }

    /** Every defect, each line starting with its kind ("ellipsized: [Queue + Charts] Button 'Add this config' …"). */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        for (Kind k : Kind.values()) {
            defects.get(k).forEach(d -> out.add(k.word + ": " + d));
        }
        return out;
    }

    public boolean isClean() {
        return defects.values().stream().allMatch(Set::isEmpty);
    }

    /** "checked 812 for clipped (0 found), 431 for ellipsized (5 found), …": what was looked at, kind by kind. */
    public String summary() {
        List<String> parts = new ArrayList<>();
        for (Kind k : Kind.values()) {
            parts.add(String.format(
                    Locale.ROOT,
                    "%d checked for %s (%d found)",
                    checked.get(k),
                    k.word,
                    defects.get(k).size()));
        }
        return String.join(", ", parts);
    }
}
