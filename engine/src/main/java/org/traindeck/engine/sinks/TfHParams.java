package org.traindeck.engine.sinks;

import static org.traindeck.engine.sinks.TfEventEncoder.writeBytes;
import static org.traindeck.engine.sinks.TfEventEncoder.writeDouble;
import static org.traindeck.engine.sinks.TfEventEncoder.writeVarintField;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * TensorBoard's HParams records, encoded by hand like the scalars: an experiment (the swept parameters and the
 * metric, in the log folder's root run), and per trial a session start (its values) and end (its status), in the
 * trial's own run. Each is an Event whose summary value carries the plugin data in its metadata and a null tensor,
 * as TensorBoard's own hparams summaries do (tensorboard/plugins/hparams: plugin_data.proto, api.proto).
 */
public final class TfHParams {

    public static final String EXPERIMENT_TAG = "_hparams_/experiment";
    public static final String SESSION_START_TAG = "_hparams_/session_start_info";
    public static final String SESSION_END_TAG = "_hparams_/session_end_info";

    /** A swept parameter: its values as listed, or the range it is drawn from. */
    public record Param(String name, List<JsonNode> values, double min, double max) {}

    /** api.proto's Status. */
    public enum Status {
        UNKNOWN,
        SUCCESS,
        FAILURE,
        RUNNING
    }

    private TfHParams() {}

    /** Experiment{name=6, time_created_secs=3, hparam_infos=4, metric_infos=5}. */
    public static byte[] experiment(double wallTime, String name, List<Param> params, List<String> metricTags) {
        ByteArrayOutputStream experiment = new ByteArrayOutputStream();
        writeDouble(experiment, 3, wallTime);
        for (Param p : params) {
            ByteArrayOutputStream info = new ByteArrayOutputStream();
            writeString(info, 1, p.name());
            writeVarintField(info, 4, dataType(p));
            if (p.values() != null) {
                ByteArrayOutputStream list = new ByteArrayOutputStream();
                for (JsonNode v : p.values()) {
                    writeBytes(list, 1, value(v));
                }
                writeBytes(info, 5, list.toByteArray());
            } else {
                ByteArrayOutputStream interval = new ByteArrayOutputStream();
                writeDouble(interval, 1, p.min());
                writeDouble(interval, 2, p.max());
                writeBytes(info, 6, interval.toByteArray());
            }
            writeBytes(experiment, 4, info.toByteArray());
        }
        for (String tag : metricTags) {
            ByteArrayOutputStream metricName = new ByteArrayOutputStream();
            writeString(metricName, 2, tag);
            ByteArrayOutputStream info = new ByteArrayOutputStream();
            writeBytes(info, 1, metricName.toByteArray());
            writeVarintField(info, 5, tag.startsWith("val/") ? 2 : 1);
            writeBytes(experiment, 5, info.toByteArray());
        }
        writeString(experiment, 6, name);
        return event(wallTime, EXPERIMENT_TAG, 2, experiment.toByteArray());
    }

    /** SessionStartInfo{hparams=1 (map of Value), group_name=4, start_time_secs=5}. */
    public static byte[] sessionStart(double wallTime, Map<String, JsonNode> values, String group) {
        ByteArrayOutputStream start = new ByteArrayOutputStream();
        for (Map.Entry<String, JsonNode> e : values.entrySet()) {
            ByteArrayOutputStream entry = new ByteArrayOutputStream();
            writeString(entry, 1, e.getKey());
            writeBytes(entry, 2, value(e.getValue()));
            writeBytes(start, 1, entry.toByteArray());
        }
        writeString(start, 4, group);
        writeDouble(start, 5, wallTime);
        return event(wallTime, SESSION_START_TAG, 3, start.toByteArray());
    }

    /** SessionEndInfo{status=1, end_time_secs=2}. */
    public static byte[] sessionEnd(double wallTime, Status status) {
        ByteArrayOutputStream end = new ByteArrayOutputStream();
        writeVarintField(end, 1, status.ordinal());
        writeDouble(end, 2, wallTime);
        return event(wallTime, SESSION_END_TAG, 4, end.toByteArray());
    }

    /** Event{wall_time=1, summary=5 {value=1 {tag=1, metadata=9 {plugin_data=1 {"hparams", content}}, tensor=8}}}. */
    private static byte[] event(double wallTime, String tag, int dataField, byte[] data) {
        ByteArrayOutputStream pluginData = new ByteArrayOutputStream();
        // HParamsPluginData{version=1 (0: left out, as proto3 does), data oneof}
        writeBytes(pluginData, dataField, data);
        ByteArrayOutputStream plugin = new ByteArrayOutputStream();
        writeString(plugin, 1, "hparams");
        writeBytes(plugin, 2, pluginData.toByteArray());
        ByteArrayOutputStream metadata = new ByteArrayOutputStream();
        writeBytes(metadata, 1, plugin.toByteArray());
        // the null tensor: TensorProto{dtype=1 DT_FLOAT, tensor_shape=2 {} (a scalar), float_val=5 [0]}
        ByteArrayOutputStream tensor = new ByteArrayOutputStream();
        writeVarintField(tensor, 1, 1);
        writeBytes(tensor, 2, new byte[0]);
        ByteArrayOutputStream floats = new ByteArrayOutputStream();
        for (int i = 0; i < 4; i++) {
            floats.write(0);
        }
        writeBytes(tensor, 5, floats.toByteArray());
        ByteArrayOutputStream value = new ByteArrayOutputStream();
        writeString(value, 1, tag);
        writeBytes(value, 9, metadata.toByteArray());
        writeBytes(value, 8, tensor.toByteArray());
        ByteArrayOutputStream summary = new ByteArrayOutputStream();
        writeBytes(summary, 1, value.toByteArray());
        ByteArrayOutputStream event = new ByteArrayOutputStream();
        writeDouble(event, 1, wallTime);
        writeBytes(event, 5, summary.toByteArray());
        return event.toByteArray();
    }

    private static long dataType(Param p) {
        if (p.values() == null || p.values().stream().allMatch(JsonNode::isNumber)) {
            return 3; // DATA_TYPE_FLOAT64
        }
        return p.values().stream().allMatch(JsonNode::isBoolean) ? 2 : 1;
    }

    /** google.protobuf.Value{number_value=2 | string_value=3 | bool_value=4}. */
    private static byte[] value(JsonNode v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (v.isNumber()) {
            writeDouble(out, 2, v.asDouble());
        } else if (v.isBoolean()) {
            writeVarintField(out, 4, v.asBoolean() ? 1 : 0);
        } else {
            writeString(out, 3, v.isTextual() ? v.asText() : v.toString());
        }
        return out.toByteArray();
    }

    private static void writeString(ByteArrayOutputStream out, int field, String s) {
        writeBytes(out, field, s.getBytes(StandardCharsets.UTF_8));
    }
}
