package io.gpuq.fairshare;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/** A {@link UsageLedger} in memory, with the same arithmetic as the database's: for tests. */
public final class InMemoryUsageLedger implements UsageLedger {

  private final Duration halfLife;
  private final Map<String, Row> rows = new HashMap<>();

  private record Row(double scaled, Instant epoch) {}

  public InMemoryUsageLedger(Duration halfLife) {
    this.halfLife = halfLife;
  }

  @Override
  public synchronized void add(Map<String, Double> dominantShareSeconds, Instant now) {
    dominantShareSeconds.forEach(
        (owner, amount) -> {
          Row row = rows.getOrDefault(owner, new Row(0, now));
          RecentUsage usage = new RecentUsage(halfLife, row.epoch());
          double scaled = row.scaled() + usage.scaled(amount, now);
          Instant epoch = row.epoch();
          if (usage.needsRebase(now)) {
            scaled *= usage.rebaseFactor(now);
            epoch = now;
          }
          rows.put(owner, new Row(scaled, epoch));
        });
  }

  @Override
  public synchronized Map<String, Double> decayed(Instant now) {
    Map<String, Double> decayed = new HashMap<>();
    rows.forEach(
        (owner, row) ->
            decayed.put(owner, new RecentUsage(halfLife, row.epoch()).decayed(row.scaled(), now)));
    return decayed;
  }
}
