package org.traindeck.engine.config.read;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What a value outside its choices is told: first what is wrong and the likely fix ("unknown layer type 'conv2xd':
 * did you mean 'conv2d'?"), then the choices on a line of their own, only when they are few or when there is no
 * likely fix to offer (34 layer types in front of the typo's fix would bury it).
 */
final class ChoiceMessage {

    /** Up to this many choices are listed even when a fix is suggested. */
    static final int SHORT_LIST = 8;

    private ChoiceMessage() {}

    static String of(String path, String key, String value, List<String> allowed) {
        Optional<String> fix = Suggestions.closest(value, allowed);
        String head = "unknown " + subject(path, key) + " '" + value + "'"
                + fix.map(c -> ": did you mean '" + c + "'?").orElse("");
        if (fix.isPresent() && allowed.size() > SHORT_LIST) {
            return head;
        }
        return head + "\nchoices: " + allowed.stream().map(a -> "'" + a + "'").collect(Collectors.joining(", "));
    }

    /** "layer type" for model.layers[3].type, "optimizer type" for stages[0].optimizer.type, "activation" for an activation. */
    static String subject(String path, String key) {
        if (!key.equals("type")) {
            return words(key);
        }
        String parent = path.endsWith("." + key) ? path.substring(0, path.length() - key.length() - 1) : "";
        parent = parent.replaceAll("\\[\\d+]$", "");
        String last = parent.substring(parent.lastIndexOf('.') + 1);
        String noun = switch (last) {
            case "layers" -> "layer";
            case "train", "validation", "test" -> "data source";
            case "" -> "";
            default -> words(last);
        };
        return noun.isEmpty() ? "type" : noun + " type";
    }

    /** camelCase as words: "weightInit" is "weight init". */
    private static String words(String key) {
        return key.replaceAll("([a-z0-9])([A-Z])", "$1 $2").toLowerCase(Locale.ROOT);
    }
}
