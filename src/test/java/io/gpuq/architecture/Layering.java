package io.gpuq.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;

/**
 * The layering of DEVELOPERS.md as ArchUnit rules, for the packages under {@code root}: a package
 * may use the packages of its own layer (without a cycle) and of the layers below it, never those
 * above. From the bottom:
 *
 * <ol>
 *   <li>foundation: {@code duty}, {@code proc}, {@code fs}, {@code placement}, {@code text}, {@code
 *       startup}: values and utilities that know nothing of jobs;
 *   <li>domain: {@code job}, {@code reported}, {@code concurrency}, {@code sweep}, {@code gpu},
 *       {@code isolation}, {@code launch}, {@code guard}, {@code cgroup}: plain Java, package by
 *       package;
 *   <li>configuration input: {@code config} ({@code GpuqProperties}, which names domain types);
 *   <li>services: {@code schedule}, {@code node}, {@code meters}, {@code retention}, {@code
 *       sweeprun}, {@code backup};
 *   <li>edges: {@code api}, {@code security}, and {@code storage}, the database adapter: every SQL
 *       statement, entity mapping and repository, behind the ports of the core and the services;
 *   <li>wiring: {@code wiring} (every {@code @Configuration}) and the application class.
 * </ol>
 *
 * <p>The rules take the root package as a parameter so that their own test can show each of them
 * failing on a small fixture.
 */
final class Layering {

  static final String FOUNDATION = "foundation";
  static final String DOMAIN = "domain";
  static final String CONFIGURATION = "configuration input";
  static final String SERVICES = "services";
  static final String EDGES = "edges";
  static final String STORAGE = "storage";
  static final String WIRING = "wiring";

  /** Spring, JPA, JDBC, HTTP and metering: what the core never imports. */
  static final String[] FRAMEWORKS = {
    "org.springframework..",
    "jakarta.persistence..",
    "org.hibernate..",
    "jakarta.servlet..",
    "io.swagger..",
    "io.micrometer..",
    "java.sql..",
    "javax.sql..",
    "org.postgresql..",
    "org.h2.."
  };

  private Layering() {}

  /**
   * Every package is its own slice, a child apart from its parent: a parent that imports its child
   * while the child imports the parent is a cycle too.
   */
  static ArchRule noPackageCycles(String root) {
    return slices()
        .matching(root + ".(**)")
        .should()
        .beFreeOfCycles()
        .because("a package and everything it uses must be understandable without what uses it");
  }

  static LayeredArchitecture layers(String root) {
    return layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .layer(FOUNDATION)
        .definedBy(in(root, "duty", "proc", "fs", "placement", "text", "startup"))
        .layer(DOMAIN)
        .definedBy(in(root, CORE))
        .layer(CONFIGURATION)
        .definedBy(in(root, "config"))
        .layer(SERVICES)
        .definedBy(in(root, "schedule", "node", "meters", "retention", "sweeprun", "backup"))
        .layer(EDGES)
        .definedBy(in(root, "api", "security"))
        .layer(STORAGE)
        .definedBy(in(root, "storage"))
        .layer(WIRING)
        .definedBy(root + ".wiring..", root)
        .whereLayer(FOUNDATION)
        .mayOnlyAccessLayers(FOUNDATION)
        .whereLayer(DOMAIN)
        .mayOnlyAccessLayers(FOUNDATION, DOMAIN)
        .whereLayer(CONFIGURATION)
        .mayOnlyAccessLayers(FOUNDATION, DOMAIN)
        .whereLayer(SERVICES)
        .mayOnlyAccessLayers(FOUNDATION, DOMAIN, CONFIGURATION, SERVICES)
        .whereLayer(EDGES)
        .mayOnlyAccessLayers(FOUNDATION, DOMAIN, CONFIGURATION, SERVICES, EDGES)
        .whereLayer(STORAGE)
        .mayOnlyAccessLayers(FOUNDATION, DOMAIN, CONFIGURATION, SERVICES, STORAGE)
        .whereLayer(WIRING)
        .mayNotBeAccessedByAnyLayer();
  }

  /**
   * The core of DEVELOPERS.md, package by package: placement, the worker environment, OOM
   * recognition, the job state machine, its rules and the store's port, request validation, sweeps'
   * rules, reported metrics, trial concurrency, and the other plain-Java packages. Their storage
   * (SQL, the entities' mapping, the repository) is {@code storage}, an adapter.
   */
  static ArchRule coreIsFrameworkFree(String root) {
    return noClasses()
        .that()
        .resideInAnyPackage(in(root, "duty", "proc", "fs", "placement", "text", "startup"))
        .or()
        .resideInAnyPackage(in(root, CORE))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(FRAMEWORKS)
        .because("the core is plain Java, tested with plain unit tests (DEVELOPERS.md)");
  }

  /** The domain's plain-Java packages: no Spring, JPA, Hibernate, JDBC, servlet or meter type. */
  static final String[] CORE = {
    "job",
    "reported",
    "concurrency",
    "sweep",
    "gpu",
    "isolation",
    "launch",
    "guard",
    "cgroup",
    "fairshare",
    "warm",
    "notify"
  };

  static ArchRule springConfigurationOnlyInWiring(String root) {
    return classes()
        .that()
        .areAnnotatedWith("org.springframework.context.annotation.Configuration")
        .should()
        .resideInAPackage(root + ".wiring")
        .because("the wiring is one package above every feature, so no feature imports it");
  }

  private static String[] in(String root, String... packages) {
    String[] identifiers = new String[packages.length];
    for (int i = 0; i < packages.length; i++) {
      identifiers[i] = root + "." + packages[i] + "..";
    }
    return identifiers;
  }
}
