package io.gpuq.storage;

import io.gpuq.fairshare.RecentUsage;
import io.gpuq.fairshare.UsageLedger;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The {@link UsageLedger} in the table {@code owner_usage} (V17): one row per owner, its scaled sum
 * and the epoch that sum counts from. A node's additions lock the owners' rows, so two nodes add
 * one after the other and neither loses the other's amount.
 */
public final class JdbcUsageLedger implements UsageLedger {

  // Runs on PostgreSQL and on H2 in its PostgreSQL mode alike.
  private static final String CREATE =
      "insert into owner_usage (owner, scaled_usage, epoch) values (?, 0, ?)"
          + " on conflict do nothing";
  private static final String LOCK =
      "select owner, scaled_usage, epoch from owner_usage where owner in (%s)"
          + " order by owner for update";
  private static final String UPDATE =
      "update owner_usage set scaled_usage = ?, epoch = ? where owner = ?";
  private static final String ALL = "select owner, scaled_usage, epoch from owner_usage";

  private final JdbcTemplate jdbc;
  private final TransactionTemplate tx;
  private final Duration halfLife;

  public JdbcUsageLedger(JdbcTemplate jdbc, TransactionTemplate tx, Duration halfLife) {
    this.jdbc = jdbc;
    this.tx = tx;
    this.halfLife = halfLife;
  }

  @Override
  public void add(Map<String, Double> dominantShareSeconds, Instant now) {
    Map<String, Double> amounts = new TreeMap<>(dominantShareSeconds);
    amounts.values().removeIf(amount -> !(amount > 0));
    if (amounts.isEmpty()) {
      return;
    }
    OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
    tx.executeWithoutResult(
        status -> {
          for (String owner : amounts.keySet()) {
            jdbc.update(CREATE, owner, at);
          }
          List<Object[]> updates =
              jdbc.query(
                  LOCK.formatted(String.join(",", Collections.nCopies(amounts.size(), "?"))),
                  (row, i) -> {
                    String owner = row.getString(1);
                    Instant epoch = row.getObject(3, OffsetDateTime.class).toInstant();
                    RecentUsage usage = new RecentUsage(halfLife, epoch);
                    double amount = amounts.get(owner);
                    double scaled;
                    if (usage.needsRebase(now)) {
                      // Decayed first, then added at the new epoch: an owner idle for a thousand
                      // half-lives has a scale past a double's range, and Inf x 0 would be NaN.
                      scaled = usage.decayed(stored(row), now) + amount;
                      epoch = now;
                    } else {
                      scaled = stored(row) + usage.scaled(amount, now);
                    }
                    return new Object[] {
                      scaled, OffsetDateTime.ofInstant(epoch, ZoneOffset.UTC), owner
                    };
                  },
                  amounts.keySet().toArray());
          jdbc.batchUpdate(UPDATE, updates);
        });
  }

  /**
   * Locks these owners' rows, creating those missing with no usage, until the connection's
   * transaction ends: the lock that submissions and claims of one owner take turns on, on every
   * node ({@code OwnerRows}). {@code owners} in the order to lock them.
   */
  static void lockRows(java.sql.Connection connection, List<String> owners, Instant now)
      throws java.sql.SQLException {
    OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
    try (java.sql.PreparedStatement create = connection.prepareStatement(CREATE)) {
      for (String owner : owners) {
        create.setString(1, owner);
        create.setObject(2, at);
        create.addBatch();
      }
      create.executeBatch();
    }
    try (java.sql.PreparedStatement lock =
        connection.prepareStatement(
            LOCK.formatted(String.join(",", Collections.nCopies(owners.size(), "?"))))) {
      int i = 1;
      for (String owner : owners) {
        lock.setString(i++, owner);
      }
      try (java.sql.ResultSet rows = lock.executeQuery()) {
        while (rows.next()) {
          // Read to the end: the rows are locked as they are read.
        }
      }
    }
  }

  @Override
  public Map<String, Double> decayed(Instant now) {
    Map<String, Double> decayed = new HashMap<>();
    jdbc.query(
        ALL,
        row -> {
          Instant epoch = row.getObject(3, OffsetDateTime.class).toInstant();
          decayed.put(row.getString(1), new RecentUsage(halfLife, epoch).decayed(stored(row), now));
        });
    return decayed;
  }

  /** An owner's scaled sum; none that is not a finite number counts. */
  private static double stored(java.sql.ResultSet row) throws java.sql.SQLException {
    double scaled = row.getDouble(2);
    return Double.isFinite(scaled) ? scaled : 0;
  }
}
