package org.traindeck.engine.config.read;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/** The key or value a user probably meant, by edit distance: a typo's fix, named in the message. */
public final class Suggestions {

    private Suggestions() {}

    /** ": did you mean \"x\"?" for the candidate closest to {@code given} when one is close enough, else "". */
    public static String didYouMean(String given, Collection<String> candidates) {
        return closest(given, candidates)
                .map(c -> ": did you mean \"" + c + "\"?")
                .orElse("");
    }

    /** The candidate closest to {@code given}, when one is close enough to be a typo of it. */
    public static Optional<String> closest(String given, Collection<String> candidates) {
        return candidates.stream()
                .min(Comparator.comparingInt(c -> editDistance(given.toLowerCase(), c.toLowerCase())))
                .filter(c -> editDistance(given.toLowerCase(), c.toLowerCase()) <= Math.max(1, c.length() / 3));
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
    private static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        int[] before = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                // two letters swapped ("adma") is one slip, not two
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    cur[j] = Math.min(cur[j], before[j - 2] + 1);
                }
            }
            int[] t = before;
            before = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
