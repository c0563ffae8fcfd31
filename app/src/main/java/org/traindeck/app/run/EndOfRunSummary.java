package org.traindeck.app.run;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.traindeck.engine.api.runs.EnergyReport;
import org.traindeck.engine.api.runs.RunResult;
import org.traindeck.engine.events.EngineEvent;
import org.traindeck.engine.events.Metric;
import org.traindeck.engine.events.MetricEvent;
import org.traindeck.engine.events.MetricNames;
import org.traindeck.engine.events.MetricRoute;
import org.traindeck.engine.events.MetricTable;

/**
 * What a run came to, read from its own metrics file when it ends: how it ended, how long and how many steps, and
 * per stage the final training loss and the best and final validation figures.
 */
public record EndOfRunSummary(RunResult.Status status, String title, String detail, List<String> stages, Path runDir) {

    public EndOfRunSummary {
        stages = List.copyOf(stages);
    }

    /** A stage's figures as its events give them (NaN: not measured). */
    private static final class StageFigures {
        final String name;
        double trainLoss = Double.NaN;
        double bestValLoss = Double.NaN;
        double lastValLoss = Double.NaN;
        /** Best and final value of each task metric the stage published, in the order first published. */
        final Map<Metric, double[]> taskFigures = new LinkedHashMap<>();

        StageFigures(String name) {
            this.name = name;
        }
    }

    /** The summary with the energy of the run's last metrics, said only where it was measured. */
    public static EndOfRunSummary of(String runName, RunResult result, List<EngineEvent> history) {
        EnergyReport energy = EnergyReport.fromMetrics(result.lastMetrics());
        return of(runName, result, history, energy.wattHours().isEmpty() ? null : energy);
    }

    /**
     * @param energy what the run's folder records of its energy (by stage, or why it could not be measured), said
     *               after its steps; null to say nothing of it
     */
    public static EndOfRunSummary of(String runName, RunResult result, List<EngineEvent> history, EnergyReport energy) {
        Map<Integer, StageFigures> byStage = new LinkedHashMap<>();
        for (EngineEvent e : history) {
            if (!(e instanceof MetricEvent m) || m.device() != null) {
                continue;
            }
            StageFigures s = byStage.computeIfAbsent(m.stageIndex(), i -> new StageFigures(m.stage()));
            Metric metric = MetricTable.of(m.name());
            switch (metric.route()) {
                case TRAIN_LOSS -> s.trainLoss = m.value();
                case VALIDATION_LOSS -> {
                    s.lastValLoss = m.value();
                    s.bestValLoss = Double.isNaN(s.bestValLoss) ? m.value() : Math.min(s.bestValLoss, m.value());
                }
                case TASK_METRIC, PROJECTION_ERROR -> {
                    if (metric.shows(MetricRoute.View.RUN_SUMMARY)) {
                        taskFigure(s, metric, m.value());
                    }
                }
                default -> {}
            }
        }
        List<String> stages = new ArrayList<>();
        for (StageFigures s : byStage.values()) {
            stages.add(describe(s));
        }
        String title = switch (result.status()) {
                    case FINISHED -> "Run finished";
                    case INCOMPLETE -> "Run finished, with files missing";
                    case STOPPED -> "Run stopped";
                    case FAILED -> "Run failed";
                }
                + ": " + runName;
        String detail = String.format(Locale.ROOT, "%,d steps in %s", result.steps(), duration(result.elapsedSeconds()))
                + switch (result.status()) {
                    case FINISHED -> "";
                    case STOPPED ->
                        result.lastCheckpoint() == null
                                ? "; no checkpoint was written"
                                : "; Resume continues from "
                                        + result.lastCheckpoint().getFileName();
                    case INCOMPLETE, FAILED -> ". " + result.message();
                }
                + (energy == null ? "" : " · " + energy.summary());
        return new EndOfRunSummary(result.status(), title, detail, stages, result.runDir());
    }

    private static void taskFigure(StageFigures s, Metric metric, double value) {
        double[] bestLast = s.taskFigures.computeIfAbsent(metric, k -> new double[] {value, value});
        bestLast[0] = metric.higherIsBetter() ? Math.max(bestLast[0], value) : Math.min(bestLast[0], value);
        bestLast[1] = value;
    }

    private static String describe(StageFigures s) {
        StringBuilder b = new StringBuilder("Stage \"" + s.name + "\":");
        if (!Double.isNaN(s.trainLoss)) {
            b.append(' ').append(MetricTable.of(MetricNames.TRAIN_LOSS).say(s.trainLoss));
        }
        if (!Double.isNaN(s.bestValLoss)) {
            b.append(" · ").append(bestAndFinal(MetricTable.of(MetricNames.VAL_LOSS), s.bestValLoss, s.lastValLoss));
        }
        // a task metric is a validation figure: "val mean IoU best 0.8712, final 0.8650"
        s.taskFigures.forEach((f, bestLast) -> b.append(" · val ").append(bestAndFinal(f, bestLast[0], bestLast[1])));
        return b.toString();
    }

    private static String bestAndFinal(Metric metric, double best, double last) {
        return metric.label() + " best " + metric.format().write(best) + ", final "
                + metric.format().write(last);
    }

    static String duration(double seconds) {
        long s = Math.round(seconds);
        if (s < 60) {
            return String.format(Locale.ROOT, "%.1f s", seconds);
        }
        if (s < 3600) {
            return (s / 60) + " min " + (s % 60) + " s";
        }
        return (s / 3600) + " h " + (s % 3600 / 60) + " min";
    }
}
