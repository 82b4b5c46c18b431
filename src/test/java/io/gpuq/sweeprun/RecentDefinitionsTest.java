package io.gpuq.sweeprun;

import static io.gpuq.storage.SweepBuilder.anExternalSweep;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.sweep.Sweep;
import io.gpuq.sweep.SweepDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The definitions of the sweeps trials were last added to")
class RecentDefinitionsTest {

  private final List<String> built = new ArrayList<>();
  private final RecentDefinitions definitions =
      new RecentDefinitions(
          sweep -> {
            built.add(sweep.id());
            return new SweepDefinition(null, null, Optional.empty(), null, Optional.empty(), null);
          });

  @Test
  void a_sweeps_definition_is_built_once_while_it_is_among_the_recent_ones() {
    Sweep sweep = anExternalSweep().sweep();

    SweepDefinition first = definitions.of(sweep);

    assertThat(definitions.of(sweep)).isSameAs(first);
    assertThat(built).containsExactly(sweep.id());
  }

  @Test
  void the_sweep_least_recently_added_to_is_built_again_once_more_than_the_kept_ones_came_since() {
    Sweep early = anExternalSweep().sweep();
    Sweep busy = anExternalSweep().sweep();
    definitions.of(early);
    definitions.of(busy);

    for (int other = 0; other < RecentDefinitions.KEPT - 1; other++) {
      definitions.of(anExternalSweep().sweep());
      definitions.of(busy);
    }
    definitions.of(early);
    definitions.of(busy);

    assertThat(built).filteredOn(early.id()::equals).hasSize(2);
    assertThat(built).filteredOn(busy.id()::equals).hasSize(1);
  }
}
