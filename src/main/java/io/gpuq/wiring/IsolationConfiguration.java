package io.gpuq.wiring;

import io.gpuq.config.GpuqProperties;
import io.gpuq.fs.DataDirectory;
import io.gpuq.isolation.Account;
import io.gpuq.isolation.Isolation;
import io.gpuq.isolation.IsolationPlanner;
import io.gpuq.isolation.Privileges;
import io.gpuq.isolation.Reachability;
import io.gpuq.isolation.SystemAccounts;
import io.gpuq.launch.env.PythonHook;
import io.gpuq.security.TokenRegistry;
import io.gpuq.startup.StartRefusedException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** Decides at start which account each owner's jobs run as; refuses to start if it cannot. */
@Configuration(proxyBeanMethods = false)
public class IsolationConfiguration {

  private static final Logger log = LoggerFactory.getLogger(IsolationConfiguration.class);

  /**
   * Lays out the data directory, tightens its modes and installs the Python hook every worker
   * imports, before anything opens a file in it: the database opens while singletons are created,
   * after every bean factory post-processor has run. The beans only name paths in it.
   */
  @Bean
  static BeanFactoryPostProcessor dataDirectoryPreparation(Environment environment) {
    return beanFactory -> {
      Path dataDir =
          Binder.get(environment).bind("gpuq.data-dir", Path.class).orElse(Path.of("./data"));
      DataDirectory layout = new DataDirectory(dataDir);
      layout.prepare();
      try {
        PythonHook.extractTo(layout.python());
      } catch (IOException e) {
        throw new StartRefusedException(
            "cannot install the Python hook under " + dataDir + " (" + e + ")",
            "give gpuq.data-dir a directory gpuq's account may write",
            e);
      }
    };
  }

  @Bean
  Isolation isolation(GpuqProperties properties) {
    Map<String, Optional<String>> owners = new LinkedHashMap<>();
    if (properties.auth().tokens().isEmpty()) {
      owners.put(TokenRegistry.GENERATED_ADMIN, Optional.empty());
    }
    for (GpuqProperties.Auth.Token token : properties.auth().tokens()) {
      Optional<String> runAs = Optional.ofNullable(token.runAs()).filter(s -> !s.isBlank());
      Optional<String> earlier = owners.putIfAbsent(token.name(), runAs);
      if (earlier != null && !earlier.equals(runAs)) {
        throw new StartRefusedException(
            "the tokens of '" + token.name() + "' name different run-as accounts",
            "give them the same gpuq.auth.tokens[N].run-as, or none");
      }
    }
    IsolationPlanner.Plan plan =
        new IsolationPlanner(new SystemAccounts())
            .plan(
                Privileges.current(),
                Optional.ofNullable(properties.worker().runAs()).filter(s -> !s.isBlank()),
                owners,
                properties.auth().tokens().isEmpty()
                    ? Optional.of(TokenRegistry.GENERATED_ADMIN)
                    : Optional.empty(),
                properties.worker().allowSharedAccount());
    plan.warnings().forEach(warning -> log.warn("{}", warning));
    Isolation isolation = plan.isolation();
    requireReachableWork(isolation, new DataDirectory(properties.dataDir()).work());
    log.info(
        "isolation: {}; gpuq runs as {}; jobs run as {}",
        isolation.mode(),
        isolation.gpuq(),
        isolation.byOwner().isEmpty() ? isolation.fallback() : isolation.byOwner());
    return isolation;
  }

  /** Refuses to start where every job of some owner would fail to enter its work directory. */
  private static void requireReachableWork(Isolation isolation, Path work) {
    for (Account account : new java.util.LinkedHashSet<>(isolation.byOwner().values())) {
      if (!isolation.needsSwitch(account)) {
        continue;
      }
      try {
        Reachability.blocker(work, account)
            .ifPresent(
                blocker -> {
                  throw new StartRefusedException(
                      "jobs run as "
                          + account
                          + " cannot reach their work directories under "
                          + work
                          + ": "
                          + blocker
                          + " is closed to them",
                      "put gpuq.data-dir where every account may pass through (for example"
                          + " --gpuq.data-dir=/var/lib/gpuq), or run gpuq as yourself");
                });
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /** Named "isolation" in /actuator/health; shown to admins only, as every health detail. */
  @Bean
  HealthIndicator isolationHealthIndicator(Isolation isolation) {
    Map<String, String> accounts = new LinkedHashMap<>();
    isolation.byOwner().forEach((owner, account) -> accounts.put(owner, account.toString()));
    return () ->
        Health.up()
            .withDetail("isolation", isolation.mode().toString())
            .withDetail("gpuqAccount", isolation.gpuq().toString())
            .withDetail("defaultJobAccount", isolation.fallback().toString())
            .withDetail("jobAccounts", accounts)
            .build();
  }
}
