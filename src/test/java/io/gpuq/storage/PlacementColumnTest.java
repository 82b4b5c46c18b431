package io.gpuq.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.JobPlacement;
import io.gpuq.placement.PlacedGpu;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A job's placement column")
class PlacementColumnTest {

  private static final long GIB = 1L << 30;

  private final JsonColumns.Placement column = new JsonColumns.Placement();

  @Test
  @DisplayName("keeps each GPU's index, uuid, budget and total")
  void roundTrips() {
    JobPlacement placement =
        JobPlacement.of(
            "node-1",
            List.of(
                new PlacedGpu(0, "GPU-a", 6 * GIB, 16 * GIB),
                new PlacedGpu(1, "GPU-b", 6 * GIB, 80 * GIB)));

    JobPlacement read = column.convertToEntityAttribute(column.convertToDatabaseColumn(placement));

    assertThat(read).isEqualTo(placement);
    assertThat(read.memoryFraction())
        .as("the smallest of its fractions, as XLA gets: 6 of 80 GiB")
        .isEqualTo(0.075);
  }

  @Test
  @DisplayName("reads a placement recorded before totals were, with a total of 0")
  void readsPlacementsWithoutTotals() {
    String recordedByAnOlderGpuq =
        "{\"node\":\"node-1\",\"gpus\":[{\"index\":0,\"uuid\":\"GPU-a\",\"memoryBytes\":6442450944}],"
            + "\"memoryFraction\":0.375}";

    JobPlacement read = column.convertToEntityAttribute(recordedByAnOlderGpuq);

    assertThat(read.gpus()).containsExactly(new PlacedGpu(0, "GPU-a", 6 * GIB, 0));
    assertThat(read.memoryFraction()).isEqualTo(0.375);
  }
}
