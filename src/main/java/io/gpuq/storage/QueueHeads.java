package io.gpuq.storage;

import io.gpuq.fairshare.Held;
import io.gpuq.job.QueuedJob;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** The queue's heads per owner and what each owner holds; a fragment of {@link JobRepository}. */
interface QueueHeads {

  /**
   * The first {@code perOwner} queued jobs of each owner of one kind, at most {@code limit} in all
   * ({@link io.gpuq.job.JobStore#queueHead(int, int, int, int)}), without the trials of these
   * sweeps.
   */
  List<QueuedJob> queueHeadsByOwner(
      boolean gpu, int perOwner, int limit, Collection<String> withoutSweeps);

  /**
   * What the running jobs of each owner hold, over every node (or on {@code node} if not null): one
   * aggregate statement.
   */
  Map<String, Held> heldByOwner(String node);
}
