package org.traindeck.engine.model.fit;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.Pointer;
import org.traindeck.engine.config.ConfigProblem;
import org.traindeck.engine.config.RunConfig;
import org.traindeck.engine.config.StageConfig;
import org.traindeck.engine.model.ModelCheck;

/** The fit check of every stage of a run: a line per stage to show, and an error per stage that does not fit. */
public record StageFits(List<String> lines, List<ConfigProblem> problems) {

    public StageFits {
        lines = List.copyOf(lines);
        problems = List.copyOf(problems);
    }

    /** ND4J's off-heap limit in this process (JavaCPP's maxbytes; the heap's maximum unless set). */
    public static long offHeapLimit() {
        return Pointer.maxBytes();
    }

    /** Nothing to say when the model did not compile: its problems are reported already. */
    public static StageFits of(RunConfig config, ModelCheck.Checked checked, List<DeviceMemory> devices) {
        List<String> lines = new ArrayList<>();
        List<ConfigProblem> problems = new ArrayList<>();
        if (checked.conf() == null || checked.summary() == null) {
            return new StageFits(lines, problems);
        }
        List<StageConfig> stages = config.stages();
        for (int i = 0; i < stages.size(); i++) {
            StageConfig stage = stages.get(i);
            ModelCheck.StageNetwork own = checked.networkOf(i);
            FitEstimate.Model model = own == null
                    ? FitEstimate.model(
                            checked.conf(), checked.input(), checked.summary().parameters(), stage)
                    : FitEstimate.model(own.conf(), own.input(), own.summary().parameters(), stage);
            String line = FitCheck.line(model, stage, devices);
            lines.add(stages.size() == 1 ? line : "stage " + stage.name() + ": " + line);
            ConfigProblem p = FitCheck.problem(i, stage, model, devices);
            if (p != null) {
                problems.add(p);
            }
        }
        return new StageFits(lines, problems);
    }
}
