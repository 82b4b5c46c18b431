package io.gpuq.wiring;

import org.springframework.boot.jpa.autoconfigure.EntityManagerFactoryBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Hibernate starts on a thread of its own: building its metamodel is the longest single step of
 * gpuq's start-up, and on a second core it overlaps the web layer, the actuator and gpuq's own
 * beans instead of coming before them (docs/benchmarks.md, "Start-up").
 *
 * <p>Until it is done, the entity manager factory is a proxy whose first use waits for it; the
 * repositories are created on first use too ({@code spring.data.jpa.repositories.bootstrap-mode:
 * deferred}), so that merely wiring them does not wait. The first real use is this node's first
 * heartbeat ({@code NodeComposition}'s first step), before the web server starts and before the
 * recovery and the scheduler, so nothing is served or scheduled before Hibernate is up, and a
 * Hibernate that fails still fails the start-up.
 */
@Configuration(proxyBeanMethods = false)
public class JpaBootstrapConfiguration {

  @Bean
  EntityManagerFactoryBuilderCustomizer hibernateInTheBackground() {
    return builder -> builder.setBootstrapExecutor(hibernateBootstrapThread());
  }

  private static SimpleAsyncTaskExecutor hibernateBootstrapThread() {
    SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("gpuq-jpa-bootstrap-");
    executor.setDaemon(true);
    // One build of one factory: more would mean a second persistence unit, which gpuq has not.
    executor.setConcurrencyLimit(1);
    return executor;
  }
}
