package org.traindeck.engine.architecture;

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
}
