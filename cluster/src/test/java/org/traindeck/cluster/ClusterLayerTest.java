package org.traindeck.cluster;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;

/**
 * The Spark backend is a client of the engine: its API, and of {@code engine.parallel} only the backend interface
 * (the session it opens, what a step sends to the executors and what comes back), nothing of how it trains.
 */
@AnalyzeClasses(packages = "org.traindeck.cluster", importOptions = ImportOption.DoNotIncludeTests.class)
class ClusterLayerTest {

    /** The backend interface: what a backend implements, is handed, runs on an executor and returns. */
    static final Set<String> BACKEND_INTERFACE = Set.of(
            "DistributedBackend",
            "DistributedSession",
            "DistributedSpec",
            "ShardData",
            "ShardReplica",
            "ShardResult",
            "ShardWork",
            "StepSum",
            "TierFailure");

    private static final DescribedPredicate<JavaClass> BACKEND_TYPE = DescribedPredicate.describe(
            "engine.parallel's backend interface " + BACKEND_INTERFACE,
            c -> c.getPackageName().equals("org.traindeck.engine.parallel")
                    && BACKEND_INTERFACE.contains(topLevel(c).getSimpleName()));

    private static final DescribedPredicate<JavaClass> ENGINE_INTERNALS = resideInAPackage("org.traindeck.engine..")
            .and(not(resideInAPackage("org.traindeck.engine.api..")))
            .and(not(BACKEND_TYPE))
            .as("reside in the engine outside engine.api and the backend interface");

    @ArchTest
    static final ArchRule clusterUsesOnlyTheApiAndTheBackendInterface = noClasses()
            .that()
            .resideInAPackage("org.traindeck.cluster..")
            .should()
            .dependOnClassesThat(ENGINE_INTERNALS)
            .because("the engine's insides may change without the cluster module");

    private static JavaClass topLevel(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }
}
