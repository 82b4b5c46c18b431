package io.gpuq.fairshare;

import java.time.Instant;
import java.util.Map;

/**
 * Where owners' recent usage is kept, shared by every node and kept across restarts: each node adds
 * what its own running jobs used, so that nothing is counted twice, and every node reads the sums.
 * Amounts are dominant-share-seconds; the ledger decays them with its half-life ({@link
 * RecentUsage}).
 */
public interface UsageLedger {

  /** Adds what each owner used, in dominant-share-seconds, up to {@code now}. */
  void add(Map<String, Double> dominantShareSeconds, Instant now);

  /** Each owner's usage, decayed to {@code now}, in dominant-share-seconds. */
  Map<String, Double> decayed(Instant now);

  /** Keeps nothing: a node alone with no recent usage, as in tests of other things. */
  UsageLedger NONE =
      new UsageLedger() {
        @Override
        public void add(Map<String, Double> dominantShareSeconds, Instant now) {}

        @Override
        public Map<String, Double> decayed(Instant now) {
          return Map.of();
        }
      };
}
