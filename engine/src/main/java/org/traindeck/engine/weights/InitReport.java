package org.traindeck.engine.weights;

import java.util.ArrayList;
import java.util.List;

/**
 * What starting from weights did: the file, the tensors loaded (under the model's names), the file's tensors the model
 * does not use, the model's tensors the file lacks, those whose shape differs, and the nodes left at their
 * initialisation.
 *
 * @param loaded    "name [shape]" per tensor loaded, with "← file name" where {@code map} renamed it
 * @param unused    the file's tensors the model has no use for, with why
 * @param missing   the model's tensors the file lacks
 * @param misfits   "name: [file shape] in the file, [shape] in the model" (or another dtype)
 * @param keptNodes the nodes left at their initialisation (strict: false)
 */
public record InitReport(
        String source,
        List<String> loaded,
        List<String> unused,
        List<String> missing,
        List<String> misfits,
        List<String> keptNodes,
        long values) {

    public InitReport {
        loaded = List.copyOf(loaded);
        unused = List.copyOf(unused);
        missing = List.copyOf(missing);
        misfits = List.copyOf(misfits);
        keptNodes = List.copyOf(keptNodes);
    }

    /** One line for a status or an event. */
    public String summary() {
        StringBuilder s = new StringBuilder(
                "weights from " + source + ": " + loaded.size() + " tensor(s), " + values + " values loaded");
        if (!keptNodes.isEmpty()) {
            s.append("; kept their initialisation: ").append(String.join(", ", keptNodes));
        }
        if (!misfits.isEmpty()) {
            s.append("; other shape: ").append(String.join("; ", misfits));
        }
        if (!missing.isEmpty()) {
            s.append("; missing from the file: ").append(String.join(", ", missing));
        }
        if (!unused.isEmpty()) {
            s.append("; in the file, not used: ").append(String.join(", ", unused));
        }
        return s.toString();
    }

    /** Every tensor, a line each, for train.log. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("init: weights from " + source + ": " + loaded.size() + " tensor(s) loaded, " + unused.size()
                + " in the file not used, " + missing.size() + " missing, " + misfits.size() + " of another shape");
        loaded.forEach(t -> out.add("init: loaded " + t));
        unused.forEach(t -> out.add("init: not used " + t));
        missing.forEach(t -> out.add("init: missing " + t));
        misfits.forEach(t -> out.add("init: other shape " + t));
        keptNodes.forEach(n -> out.add("init: node " + n + " keeps its initialisation"));
        return out;
    }
}
