package org.traindeck.engine.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * One front door: the command line reaches the engine as the app does (its layer test has the same rule), through
 * {@code engine.api} and the plain values it hands out (configs, events, results, device figures) and the exceptions
 * it throws, so no command drives the queue runner, a training run, a lock or an event bus itself.
 */
@AnalyzeClasses(packages = "org.traindeck.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class CliFrontDoorTest {

    private static final DescribedPredicate<JavaClass> VALUE_TYPE = DescribedPredicate.describe(
            "a value type",
            c -> c.isRecord()
                    || c.isEnum()
                    || c.isInterface()
                            && resideInAnyPackage("org.traindeck.engine.config..", "org.traindeck.engine.events..")
                                    .test(c)
                    || assignableTo(Throwable.class).test(c)
                    || holdsOnlyConstants(c)
                    || namesEvents(c));

    private static final DescribedPredicate<JavaClass> ENGINE_INTERNALS = resideInAPackage("org.traindeck.engine..")
            .and(not(resideInAnyPackage("org.traindeck.engine.api..", "org.traindeck.engine.cli..")))
            .and(not(VALUE_TYPE))
            .as("engine classes outside engine.api that are not value types");

    @ArchTest
    static final ArchRule theCommandLineUsesOnlyTheEngineApi = noClasses()
            .that()
            .resideInAPackage("org.traindeck.engine.cli..")
            .should()
            .dependOnClassesThat(ENGINE_INTERNALS);

    @ArchTest
    static final ArchRule theCommandLineNeverTouchesNd4j = noClasses()
            .that()
            .resideInAPackage("org.traindeck.engine.cli..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.nd4j..", "org.deeplearning4j..", "org.bytedeco..");

    private static boolean holdsOnlyConstants(JavaClass c) {
        return !c.getFields().isEmpty()
                && c.getFields().stream().allMatch(CliFrontDoorTest::isConstant)
                && c.getMethods().isEmpty()
                && c.getConstructors().stream().allMatch(k -> k.getModifiers().contains(JavaModifier.PRIVATE));
    }

    /** A stateless helper of the event family (how a metric's name is built and read): part of the events' contract. */
    private static boolean namesEvents(JavaClass c) {
        return resideInAPackage("org.traindeck.engine.events..").test(c)
                && c.getFields().stream().allMatch(CliFrontDoorTest::isConstant)
                && c.getMethods().stream().allMatch(m -> m.getModifiers().contains(JavaModifier.STATIC))
                && c.getConstructors().stream().allMatch(k -> k.getModifiers().contains(JavaModifier.PRIVATE));
    }

    private static boolean isConstant(JavaField f) {
        return f.getModifiers().contains(JavaModifier.STATIC)
                && f.getModifiers().contains(JavaModifier.FINAL);
    }
}
