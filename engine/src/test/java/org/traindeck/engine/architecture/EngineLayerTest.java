package org.traindeck.engine.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The engine's shape: no JavaFX (it runs headless in the CLI and CI), and packages that depend one way. */
@AnalyzeClasses(packages = "org.traindeck.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class EngineLayerTest {

    @ArchTest
    static final ArchRule engineNeverUsesJavaFx = noClasses()
            .that()
            .resideInAPackage("org.traindeck.engine..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("javafx..", "org.jfree..");

    @ArchTest
    static final ArchRule engineNeverUsesTheApp = noClasses()
            .that()
            .resideInAPackage("org.traindeck.engine..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.traindeck.app..");

    /** Every package is its own slice, at every depth: train and train.step, model and model.graph. */
    @ArchTest
    static final ArchRule enginePackagesHaveNoCycles =
            slices().matching("org.traindeck.engine.(**)").should().beFreeOfCycles();

    /**
     * The values the API hands out (engine.api.runs, .devices, .queue, ...) know nothing of how the engine works, so
     * that every package can use them and moving a type there never makes a cycle.
     */
    @ArchTest
    static final ArchRule apiValuePackagesAreLeaves = noClasses()
            .that()
            .resideInAPackage("org.traindeck.engine.api.*..")
            .should()
            .dependOnClassesThat(resideInAPackage("org.traindeck.engine..")
                    .and(not(resideInAnyPackage(
                            "org.traindeck.engine.api.*..",
                            "org.traindeck.engine.events..",
                            "org.traindeck.engine.config..",
                            "org.traindeck.engine.checkpoint..")))
                    .as("reside in the engine outside the API's value packages, events, config and checkpoint"));
}
