package org.gargamel.launcher.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Tags;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.annotation.Testable;

/**
 * The module boundaries, checked on the main classes of every module (this module's test class path holds them all):
 * which module may depend on which (common on none; provisioning, classifier, the TPC-C kit and the bank on common;
 * scheduler, node and the front end on common and classifier; the simulator on those, the scheduler and the TPC-C kit;
 * launcher.server on common, classifier, scheduler, node and the front end; the rest of the launcher on anything), that a module uses another only through its root package and the packages it exports
 * ({@link #EXPORTS}), that server code never prints and only a {@code main} exits; and, on every module's compiled
 * tests, that every test class carries its tier's tag.
 */
@Tag("unit")
class ArchitectureTest {
    /** Where the reactor's modules are (launcher/pom.xml sets it; the launcher's directory is the fallback's base). */
    static final String ROOT_PROPERTY = "gargamel.reactor.root";

    private static final String COMMON = "org.gargamel.common";
    private static final String PROVISIONING = "org.gargamel.provisioning";
    private static final String CLASSIFIER = "org.gargamel.classifier";
    private static final String SCHEDULER = "org.gargamel.scheduler";
    private static final String NODE = "org.gargamel.node";
    private static final String FRONTEND = "org.gargamel.frontend";
    private static final String TPCC = "org.gargamel.tpcc";
    private static final String BANK = "org.gargamel.bank";
    private static final String SIMULATOR = "org.gargamel.simulator";
    private static final String LAUNCHER = "org.gargamel.launcher";
    private static final String LAUNCHER_SERVER = "org.gargamel.launcher.server";
    /** The entry point of gargamel-server.jar. */
    private static final String SERVER_ENTRY = LAUNCHER_SERVER + ".ServerMain";

    /** The code that runs in the scheduler and node processes (gargamel-server.jar): it logs, it never prints. */
    private static final String[] SERVER_CODE = {
        COMMON + "..", CLASSIFIER + "..", SCHEDULER + "..", NODE + "..", FRONTEND + "..", LAUNCHER_SERVER + ".."
    };

    /**
     * What each module lets the others use besides its root package, with the reason. Derived from the uses across
     * modules of today's code; anything else in a module is its own business.
     */
    private static final Map<String, Map<String, String>> EXPORTS = new LinkedHashMap<>();

    static {
        Map<String, String> common = new LinkedHashMap<>();
        common.put(COMMON + ".call", "the procedure call every process passes around, and SQL error kinds");
        common.put(COMMON + ".client", "the client library the TPC-C terminals, the launcher and the tests use");
        common.put(COMMON + ".convergence", "whether replicas hold the same data: table checksums both kits compare");
        common.put(COMMON + ".config", "configuration files, Mode, Isolation, Secrets: every process's settings");
        common.put(COMMON + ".group", "the JGroups stacks of the scheduler, the nodes and the clients");
        common.put(COMMON + ".jdbc", "connecting to PostgreSQL by URL (provisioning, the TPC-C kit, the commands)");
        common.put(COMMON + ".lifecycle", "Supervisor and FatalException, for the threads of the server processes");
        common.put(COMMON + ".stats", "latency histograms: the TPC-C results' and the nodes' agreement waits");
        common.put(COMMON + ".wire", "the messages of the protocol and their codec");
        EXPORTS.put(COMMON, common);
        EXPORTS.put(PROVISIONING, Map.of());
        Map<String, String> classifier = new LinkedHashMap<>();
        classifier.put(CLASSIFIER + ".index", "the conflict index the scheduler keeps its chains with");
        classifier.put(CLASSIFIER + ".validate", "the check of the rules against the live schema a node runs at start");
        EXPORTS.put(CLASSIFIER, classifier);
        EXPORTS.put(
                SCHEDULER,
                Map.of(SCHEDULER + ".core", "the scheduler's core, which the simulator drives as the server does"));
        EXPORTS.put(FRONTEND, Map.of());
        EXPORTS.put(
                NODE,
                Map.of(
                        NODE + ".capture",
                        "the node command removes the write-set capture triggers (WriteSetCapture.uninstall)",
                        NODE + ".transfer",
                        "serve compares existing replicas' schemas as the scheduler does (SchemaDigest.definitions)"));
        Map<String, String> tpcc = new LinkedHashMap<>();
        tpcc.put(TPCC + ".check", "the consistency check the commands run after a TPC-C run");
        tpcc.put(TPCC + ".loader", "loading the TPC-C database (the load and run commands, local clusters)");
        tpcc.put(TPCC + ".random", "the seeded generators the commands hand to the loader and the terminals");
        tpcc.put(TPCC + ".result", "run results and latency histograms the commands print and compare");
        tpcc.put(TPCC + ".schema", "creating the schema and procedures");
        tpcc.put(TPCC + ".terminal", "the terminal emulator the run commands drive");
        tpcc.put(TPCC + ".workload", "the transaction mix and the executors (direct or through Gargamel)");
        EXPORTS.put(TPCC, tpcc);
        Map<String, String> bank = new LinkedHashMap<>();
        bank.put(BANK + ".check", "the bank's invariants the bank commands check after a run");
        bank.put(BANK + ".schema", "creating and loading the bank, and its rules file");
        bank.put(BANK + ".workload", "the bank's terminals and what they were told");
        EXPORTS.put(BANK, bank);
        EXPORTS.put(SIMULATOR, Map.of());
        EXPORTS.put(LAUNCHER, Map.of());
    }

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar")) // common's test jar outside a reactor
                .importPackages("org.gargamel");
        assertFalse(main.isEmpty(), "no class of org.gargamel on the class path");
    }

    /** (a) Which module may depend on which. */
    @Test
    void modulesDependOnlyOnTheModulesTheyMay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInLayers()
                .ensureAllClassesAreContainedInArchitecture()
                .layer("common")
                .definedBy(COMMON + "..")
                .layer("provisioning")
                .definedBy(PROVISIONING + "..")
                .layer("classifier")
                .definedBy(CLASSIFIER + "..")
                .layer("scheduler")
                .definedBy(SCHEDULER + "..")
                .layer("node")
                .definedBy(NODE + "..")
                .layer("frontend")
                .definedBy(FRONTEND + "..")
                .layer("tpcc")
                .definedBy(TPCC + "..")
                .layer("bank")
                .definedBy(BANK + "..")
                .layer("simulator")
                .definedBy(SIMULATOR + "..")
                .layer("launcher.server")
                .definedBy(LAUNCHER_SERVER + "..")
                .layer("launcher")
                .definedBy(resideInAPackage(LAUNCHER + "..")
                        .and(resideOutsideOfPackage(LAUNCHER_SERVER + ".."))
                        .as("the rest of " + LAUNCHER))
                .whereLayer("common")
                .mayNotAccessAnyLayer()
                .whereLayer("provisioning")
                .mayOnlyAccessLayers("common")
                .whereLayer("classifier")
                .mayOnlyAccessLayers("common")
                .whereLayer("scheduler")
                .mayOnlyAccessLayers("common", "classifier")
                .whereLayer("node")
                .mayOnlyAccessLayers("common", "classifier")
                .whereLayer("frontend")
                .mayOnlyAccessLayers("common", "classifier")
                .whereLayer("tpcc")
                .mayOnlyAccessLayers("common")
                .whereLayer("bank")
                .mayOnlyAccessLayers("common")
                .whereLayer("simulator")
                .mayOnlyAccessLayers("common", "classifier", "scheduler", "tpcc")
                .whereLayer("launcher.server")
                .mayOnlyAccessLayers("common", "classifier", "scheduler", "node", "frontend")
                .check(main);
    }

    /** (b) A module's classes use another module only through its root package and the packages it exports. */
    @Test
    void noModuleReachesIntoAnotherOnesInternals() {
        List<ArchRule> rules = new ArrayList<>();
        EXPORTS.forEach((module, exported) -> {
            List<String> visible = new ArrayList<>(exported.keySet());
            visible.add(0, module); // exactly the root package, none below it unless listed
            DescribedPredicate<JavaClass> internal = resideInAPackage(module + "..")
                    .and(resideOutsideOfPackages(visible.toArray(String[]::new)))
                    .as("are in " + module + ".. but not in its root or exported packages " + visible);
            rules.add(noClasses()
                    .that()
                    .resideOutsideOfPackage(module + "..")
                    .should()
                    .dependOnClassesThat(internal));
        });
        CompositeArchRule.of(rules).check(main);
    }

    /**
     * (c) The server processes log through SLF4J: no System.out, System.err or printStackTrace() in their code. One
     * place is the exception: gargamel-server.jar's {@code main} hands the process's standard streams to the commands
     * it runs, which print their output (help, usage errors) only on the streams they are given.
     */
    @Test
    void serverCodeNeverWritesToStandardStreams() {
        DescribedPredicate<JavaFieldAccess> standardStream = DescribedPredicate.describe(
                "System.out or System.err, outside " + SERVER_ENTRY + ".main (which hands them to the commands)",
                access -> access.getTargetOwner().isEquivalentTo(System.class)
                        && (access.getName().equals("out") || access.getName().equals("err"))
                        && !(access.getOriginOwner().getName().equals(SERVER_ENTRY)
                                && access.getOrigin().getName().equals("main")));
        DescribedPredicate<JavaMethodCall> printStackTrace = DescribedPredicate.describe(
                "printStackTrace() of any Throwable (it prints to System.err)",
                call -> call.getName().equals("printStackTrace")
                        && call.getTarget().getRawParameterTypes().isEmpty()
                        && call.getTargetOwner().isAssignableTo(Throwable.class));
        noClasses()
                .that()
                .resideInAnyPackage(SERVER_CODE)
                .should()
                .accessFieldWhere(standardStream)
                .orShould()
                .callMethodWhere(printStackTrace)
                .check(main);
    }

    /** (c) Only a {@code main} ends the process; anything else reports its failure to the one that does. */
    @Test
    void onlyAMainMethodCallsSystemExit() {
        classes()
                .should(new ArchCondition<JavaClass>("call System.exit only from a method named main") {
                    @Override
                    public void check(JavaClass javaClass, ConditionEvents events) {
                        for (JavaMethodCall call : javaClass.getMethodCallsFromSelf()) {
                            boolean exit = call.getTargetOwner().isEquivalentTo(System.class)
                                    && call.getName().equals("exit");
                            if (exit && !call.getOrigin().getName().equals("main")) {
                                events.add(SimpleConditionEvent.violated(call, call.getDescription()));
                            }
                        }
                    }
                })
                .check(main);
    }

    /** (d) Every test class of every module carries a tier tag (unit, cluster, integration, e2e). */
    @Test
    void everyTestClassIsTagged() {
        JavaClasses tests = new ClassFileImporter().importPaths(testClassDirectories());
        classes().that(runTests()).should(carryATag()).check(tests);
    }

    private static DescribedPredicate<JavaClass> runTests() {
        return DescribedPredicate.describe(
                "are concrete and have test methods",
                javaClass -> !javaClass.getModifiers().contains(JavaModifier.ABSTRACT)
                        && javaClass.getAllMethods().stream().anyMatch(ArchitectureTest::isTestMethod));
    }

    /** {@code @Test}, {@code @ParameterizedTest}, {@code @RepeatedTest}, {@code @TestFactory}: all are @Testable. */
    private static boolean isTestMethod(JavaMethod method) {
        return method.isMetaAnnotatedWith(Testable.class);
    }

    /** JUnit's tags are inherited from superclasses (@Inherited) and by @Nested classes from enclosing ones. */
    private static ArchCondition<JavaClass> carryATag() {
        return new ArchCondition<>("carry a JUnit @Tag (its own, a superclass's or an enclosing class's)") {
            @Override
            public void check(JavaClass javaClass, ConditionEvents events) {
                if (!tagged(javaClass)) {
                    events.add(SimpleConditionEvent.violated(
                            javaClass,
                            javaClass.getName() + " has test methods" + " and no @Tag ("
                                    + javaClass
                                            .getSource()
                                            .map(Object::toString)
                                            .orElse("?") + ")"));
                }
            }
        };
    }

    private static boolean tagged(JavaClass javaClass) {
        if (javaClass.isMetaAnnotatedWith(Tag.class) || javaClass.isMetaAnnotatedWith(Tags.class)) {
            return true;
        }
        if (javaClass.getRawSuperclass().filter(ArchitectureTest::tagged).isPresent()) {
            return true;
        }
        return javaClass.getEnclosingClass().filter(ArchitectureTest::tagged).isPresent();
    }

    /** target/test-classes of every module of the reactor that has tests; each must have been compiled. */
    private static List<Path> testClassDirectories() {
        Path root = Path.of(System.getProperty(ROOT_PROPERTY, ".."))
                .toAbsolutePath()
                .normalize();
        List<Path> directories = new ArrayList<>();
        try (Stream<Path> children = Files.list(root)) {
            for (Path module : children.sorted().toList()) {
                if (!Files.isRegularFile(module.resolve("pom.xml")) || !hasJavaFiles(module.resolve("src/test/java"))) {
                    continue;
                }
                Path compiled = module.resolve("target/test-classes");
                if (!Files.isDirectory(compiled)) {
                    throw new AssertionError(compiled + " is missing: the tests of " + module.getFileName()
                            + " are not compiled (build the reactor: ./mvnw -B verify, or -pl launcher -am)");
                }
                directories.add(compiled);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the modules in " + root, e);
        }
        assertFalse(directories.isEmpty(), "no module with tests under " + root + " (" + ROOT_PROPERTY + ")");
        return directories;
    }

    private static boolean hasJavaFiles(Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return false;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            return files.anyMatch(file -> file.toString().endsWith(".java"));
        }
    }
}
