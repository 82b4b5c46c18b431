package io.gpuq.schedule;

import io.gpuq.fairshare.Capacity;
import io.gpuq.fairshare.Limits;
import io.gpuq.fairshare.OwnerTerms;
import io.gpuq.fairshare.UsageLedger;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What scheduling needs for fair share beyond the queue and what owners hold (which it reads from
 * the job store).
 *
 * @param terms each configured owner's terms; an owner not in it has {@link OwnerTerms#DEFAULT}
 * @param otherNodes what the other live nodes have: with this node's, the cluster's capacity
 * @param ledger where recent usage is kept, shared by every node
 * @param halfLife how fast recent usage decays ({@code gpuq.fair-share.half-life})
 * @param accountEvery how often this node adds its jobs' usage to the ledger and reads it back
 */
public record FairShareInputs(
    Map<String, OwnerTerms> terms,
    Supplier<Capacity> otherNodes,
    UsageLedger ledger,
    Duration halfLife,
    Duration accountEvery) {

  /** Every owner of share 1, a node alone, no recent usage kept. */
  public static final FairShareInputs ALONE =
      new FairShareInputs(
          Map.of(),
          () -> new Capacity(0, 0, 0),
          UsageLedger.NONE,
          Duration.ofDays(1),
          Duration.ofSeconds(30));

  public FairShareInputs {
    terms = Map.copyOf(terms);
    Objects.requireNonNull(otherNodes, "otherNodes");
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(halfLife, "halfLife");
    Objects.requireNonNull(accountEvery, "accountEvery");
  }

  double shareOf(String owner) {
    return terms.getOrDefault(owner, OwnerTerms.DEFAULT).share();
  }

  Limits limitsOf(String owner) {
    return terms.getOrDefault(owner, OwnerTerms.DEFAULT).limits();
  }
}
