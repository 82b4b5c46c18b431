package io.gpuq.schedule;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.OwnerTerms;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What a scheduling pass needs for fair share beyond the queue and what owners hold (which it reads
 * from the job store).
 *
 * @param terms each configured owner's terms; an owner not in it has {@link OwnerTerms#DEFAULT}
 * @param otherNodes what the other live nodes have: with this node's, the cluster's capacity
 * @param recentUsage each owner's recent usage as an average dominant share ({@link
 *     io.gpuq.fairshare.RecentUsage#average}), read when a pass needs it
 */
public record FairShareInputs(
    Map<String, OwnerTerms> terms,
    Supplier<Capacity> otherNodes,
    Supplier<Map<String, Double>> recentUsage) {

  /** Every owner of share 1, a node alone, no recent usage kept. */
  public static final FairShareInputs ALONE =
      new FairShareInputs(Map.of(), () -> new Capacity(0, 0, 0), Map::of);

  public FairShareInputs {
    terms = Map.copyOf(terms);
    Objects.requireNonNull(otherNodes, "otherNodes");
    Objects.requireNonNull(recentUsage, "recentUsage");
  }

  double shareOf(String owner) {
    return terms.getOrDefault(owner, OwnerTerms.DEFAULT).share();
  }
}
