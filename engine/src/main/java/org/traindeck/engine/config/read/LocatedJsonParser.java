package org.traindeck.engine.config.read;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.JsonLocations;

/**
 * Parses JSON into a Jackson tree while recording where every value starts, so that validation messages can name
 * the line and column. Duplicate keys are rejected: silently keeping the last one hides mistakes.
 */
public final class LocatedJsonParser {

    /** The tree and where its values are; or, for text that is not JSON, where it breaks and why. */
    public record Result(JsonNode root, JsonLocations locations, ConfigProblem syntaxError) {}

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            .build();

    private final JsonLocations locations = new JsonLocations();

    public static Result parse(String text) {
        if (text == null || text.isBlank()) {
            return new Result(
                    null,
                    new JsonLocations(),
                    ConfigProblem.error(
                            "", "the file is empty: expected a JSON object such as {\"name\": \"my-run\", ...}", null));
        }
        LocatedJsonParser parser = new LocatedJsonParser();
        try (JsonParser p = FACTORY.createParser(text)) {
            JsonToken first = p.nextToken();
            JsonNode root = parser.readValue(p, first, "");
            JsonToken trailing = p.nextToken();
            if (trailing != null) {
                JsonLocation at = p.currentTokenLocation();
                return new Result(
                        null,
                        parser.locations,
                        ConfigProblem.error(
                                "",
                                "unexpected content after the end of the JSON object",
                                new JsonLocations.Position(at.getLineNr(), at.getColumnNr())));
            }
            return new Result(root, parser.locations, null);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            JsonLocations.Position pos =
                    at == null ? null : new JsonLocations.Position(at.getLineNr(), at.getColumnNr());
            return new Result(null, parser.locations, ConfigProblem.error("", "invalid JSON: " + cleanMessage(e), pos));
        } catch (IOException e) {
            return new Result(
                    null, parser.locations, ConfigProblem.error("", "cannot read the JSON: " + e.getMessage(), null));
        }
    }

    private static String cleanMessage(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        int cut = message.indexOf("\n at [Source");
        message = cut >= 0 ? message.substring(0, cut) : message;
        return message.replace('\n', ' ').trim();
    }

    private JsonNode readValue(JsonParser p, JsonToken token, String path) throws IOException {
        JsonLocation at = p.currentTokenLocation();
        locations.put(path, new JsonLocations.Position(at.getLineNr(), at.getColumnNr()));
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        switch (token) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                JsonToken t;
                while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String key = p.currentName();
                    JsonToken valueToken = p.nextToken();
                    object.set(key, readValue(p, valueToken, JsonLocations.child(path, key)));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                int index = 0;
                JsonToken t;
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                    array.add(readValue(p, t, JsonLocations.element(path, index++)));
                }
                return array;
            }
            case VALUE_STRING -> {
                return nodes.textNode(p.getText());
            }
            case VALUE_NUMBER_INT -> {
                return switch (p.getNumberType()) {
                    case INT -> nodes.numberNode(p.getIntValue());
                    case LONG -> nodes.numberNode(p.getLongValue());
                    default -> nodes.numberNode(p.getBigIntegerValue());
                };
            }
            case VALUE_NUMBER_FLOAT -> {
                return nodes.numberNode(p.getDoubleValue());
            }
            case VALUE_TRUE -> {
                return nodes.booleanNode(true);
            }
            case VALUE_FALSE -> {
                return nodes.booleanNode(false);
            }
            case VALUE_NULL -> {
                return nodes.nullNode();
            }
            default -> throw new IOException("unexpected token " + token);
        }
    }
}
