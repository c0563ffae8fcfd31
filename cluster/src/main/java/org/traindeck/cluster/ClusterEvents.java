package org.traindeck.cluster;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkConf;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;

/**
 * What the driver has seen of its executors: where each runs, why one left, which are busy, for the diagnoses.
 * Registered through spark.extraListeners, so that it sees the executors that join while the context starts; the
 * session finds its instance by the application's name.
 */
public final class ClusterEvents extends SparkListener {

    private static final Map<String, ClusterEvents> BY_APP = new ConcurrentHashMap<>();

    private final Map<String, String> hosts = new ConcurrentHashMap<>();
    private final Map<String, String> removed = new ConcurrentHashMap<>();
    private final Map<Long, String> running = new ConcurrentHashMap<>();

    public ClusterEvents(SparkConf conf) {
        BY_APP.put(conf.get("spark.app.name"), this);
    }

    static ClusterEvents of(String appName) {
        ClusterEvents events = BY_APP.get(appName);
        if (events == null) {
            throw new IllegalStateException("Spark did not register TrainDeck's listener for " + appName);
        }
        return events;
    }

    static void forget(String appName) {
        BY_APP.remove(appName);
    }

    @Override
    public void onExecutorAdded(SparkListenerExecutorAdded added) {
        hosts.put(added.executorId(), added.executorInfo().executorHost());
    }

    @Override
    public void onExecutorRemoved(SparkListenerExecutorRemoved gone) {
        removed.put(gone.executorId(), gone.reason());
    }

    @Override
    public void onTaskStart(SparkListenerTaskStart start) {
        running.put(start.taskInfo().taskId(), start.taskInfo().executorId());
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd end) {
        running.remove(end.taskInfo().taskId());
    }

    /** "executor 1 on 10.0.0.7" */
    String name(String executorId) {
        return "executor " + executorId + " on " + hosts.getOrDefault(executorId, "an unknown host");
    }

    /** The executors that joined and have not left, by id. */
    Map<String, String> live() {
        Map<String, String> live = new TreeMap<>(hosts);
        removed.keySet().forEach(live::remove);
        return live;
    }

    /** "executor 1 on 10.0.0.7, executor 2 on 10.0.0.8" */
    String names(Collection<String> executorIds) {
        return String.join(", ", executorIds.stream().map(this::name).toList());
    }

    Map<String, String> removed() {
        return Map.copyOf(removed);
    }

    /** The executors with a task still running. */
    java.util.Set<String> busy() {
        return new java.util.TreeSet<>(running.values());
    }
}
