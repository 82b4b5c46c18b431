package io.gpuq.wiring;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.IntegrationTest;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.support.GenericApplicationContext;

@DisplayName("A node's first heartbeat comes before its recovery, its loop and its duties")
class NodeStartOrderIntegrationTest extends IntegrationTest {

  @Autowired GenericApplicationContext context;

  /**
   * Spring starts the lifecycles a lifecycle depends on before it, whatever their phase: a first
   * heartbeat (phase 0) that depended on the composition (a later phase) started the loop and the
   * duties before it beat.
   */
  @Test
  void the_first_heartbeat_depends_on_no_lifecycle_of_a_later_phase() {
    ConfigurableListableBeanFactory beans = context.getBeanFactory();
    SmartLifecycle membership = beans.getBean("nodeMembership", SmartLifecycle.class);

    Set<String> seen = new HashSet<>();
    Deque<String> toVisit = new ArrayDeque<>(Set.of("nodeMembership"));
    while (!toVisit.isEmpty()) {
      for (String dependency : beans.getDependenciesForBean(toVisit.pop())) {
        if (seen.add(dependency)) {
          toVisit.push(dependency);
        }
      }
    }

    assertThat(seen).contains("nodeRegistry").doesNotContain("nodeComposition");
    assertThat(seen)
        .filteredOn(name -> beans.containsSingleton(name))
        .allSatisfy(
            name -> {
              Object bean = beans.getSingleton(name);
              if (bean instanceof SmartLifecycle lifecycle) {
                assertThat(lifecycle.getPhase())
                    .as(name)
                    .isLessThanOrEqualTo(membership.getPhase());
              }
            });
  }
}
