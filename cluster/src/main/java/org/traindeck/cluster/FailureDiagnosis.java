package org.traindeck.cluster;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A failed Spark job, said as which machine failed and how, from Spark's message and the executors seen leaving. */
final class FailureDiagnosis {

    // "... most recent failure: Lost task 1.0 in stage 3.0 (TID 7) (10.0.0.7 executor 1): ExecutorLostFailure (...)"
    private static final Pattern LOST_TASK = Pattern.compile("\\(([^()\\s]+) executor ([^()\\s]+)\\): (.*)");

    private FailureDiagnosis() {}

    static String of(Throwable failure, ClusterEvents events) {
        String message = failure == null ? "unknown failure" : String.valueOf(failure.getMessage());
        String firstLines =
                message.lines().limit(2).reduce((a, b) -> a + " " + b).orElse(message);
        int trace = firstLines.indexOf(" Driver stacktrace:");
        if (trace >= 0) {
            firstLines = firstLines.substring(0, trace);
        }
        Matcher m = LOST_TASK.matcher(firstLines);
        if (m.find()) {
            String host = m.group(1);
            String executor = m.group(2);
            String what = m.group(3).strip();
            String cause = what.startsWith("ExecutorLostFailure")
                    ? "was lost (" + shorten(what) + ")"
                    : "failed: " + shorten(what);
            return "executor " + executor + " on " + host + " " + cause;
        }
        Map<String, String> removed = events.removed();
        if (!removed.isEmpty()) {
            Map.Entry<String, String> e = removed.entrySet().iterator().next();
            return events.name(e.getKey()) + " was lost (" + e.getValue() + "); Spark said: " + shorten(firstLines);
        }
        return "the cluster job failed: " + shorten(firstLines);
    }

    private static String shorten(String s) {
        return s.length() > 400 ? s.substring(0, 400) + "…" : s;
    }
}
