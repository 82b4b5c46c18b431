package io.gpuq.wiring;

import io.gpuq.job.Job;
import io.gpuq.job.JobAttempt;
import io.gpuq.node.Node;
import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.util.List;
import org.springframework.boot.jpa.autoconfigure.EntityManagerFactoryBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;

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

  /**
   * The classes {@code META-INF/orm.xml} maps, named: Spring's scan finds only classes annotated
   * {@code @Entity}, and gpuq's are plain Java. With them named, and the root that holds the XML,
   * the build's ahead-of-time step can build the metamodel and generate the repositories' queries,
   * which a start would otherwise derive and parse (docs/benchmarks.md, "Start-up").
   */
  @Bean
  PersistenceManagedTypes persistenceManagedTypes() throws IOException {
    URL mapping = new ClassPathResource(MAPPING).getURL();
    String text = mapping.toString();
    URL root = URI.create(text.substring(0, text.length() - MAPPING.length())).toURL();
    List<String> mapped =
        List.of(Job.class.getName(), JobAttempt.class.getName(), Node.class.getName());
    return new PersistenceManagedTypes() {
      @Override
      public List<String> getManagedClassNames() {
        return mapped;
      }

      @Override
      public List<String> getManagedPackages() {
        return List.of();
      }

      @Override
      public URL getPersistenceUnitRootUrl() {
        return root;
      }
    };
  }

  private static final String MAPPING = "META-INF/orm.xml";

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
