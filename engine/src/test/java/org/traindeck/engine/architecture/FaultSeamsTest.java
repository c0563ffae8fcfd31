package org.traindeck.engine.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Tests' fault plans enter production code at one front door, the engine facade ({@code Engine.using}), which the
 * command line and the app's tests go through. Inside, each fault is a narrow hook at the one seam it happens at
 * (a run's {@code RunFaults}, a checkpoint's {@code CheckpointWriteHook}, the queue's {@code RunStarter}), so a plan
 * cannot be threaded through the training classes again.
 */
@AnalyzeClasses(packages = "org.traindeck.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class FaultSeamsTest {

    @ArchTest
    static final ArchRule onlyTheFrontDoorsKnowTheFaultPlan = noClasses()
            .that()
            .resideOutsideOfPackage("org.traindeck.engine.faults..")
            .and()
            .haveNameNotMatching("org\\.traindeck\\.engine\\.api\\.Engine(\\$.*)?")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.traindeck.engine.faults..")
            .because("fault injection is passed in at the few seams that need it (the guide), as narrow hooks");

    /** The training loop's faults travel in the run's state and are read only where each one happens. */
    @ArchTest
    static final ArchRule trainingFaultsAreReadWhereTheyHappen = noClasses()
            .that()
            .resideOutsideOfPackage("org.traindeck.engine.faults..")
            .and()
            .haveNameNotMatching(
                    "org\\.traindeck\\.engine\\.train\\.(state\\.TrainingFaults|RunFaults|state\\.TrainingState"
                            // the trainer puts them in the state, its epochs stop and stall; the chain fails a tier's
                            // setup
                            + "|Trainer|StageEpochs|TierChain"
                            // NaN steps, and a worker failing in the middle of a step or between two rounds
                            + "|step\\.SingleDeviceStep|step\\.AllReduceStep|step\\.DistributedStep|step\\.ParallelEpoch"
                            // a long validation, for a signal to land in
                            + "|callback\\.Evaluator)(\\$.*)?")
            .should()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.traindeck.engine.train.state.TrainingFaults");
}
