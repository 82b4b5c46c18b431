package io.gpuq.storage;

import io.gpuq.fairshare.RecentUsage;
import io.gpuq.fairshare.UsageLedger;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The SQL of the table {@code owner_usage} (V17), the {@link UsageLedger}: one row per owner, its
 * scaled sum and the epoch that sum counts from. A node's additions lock the owners' rows, so two
 * nodes add one after the other and neither loses the other's amount; submissions and claims lock
 * the same rows ({@link #lockRows}) on their own transaction's connection.
 */
public final class OwnerUsageTable implements UsageLedger {

  // Runs on PostgreSQL and on H2 in its PostgreSQL mode alike. :rows: (owner, 0, epoch) each, one
  // statement however many.
  private static final String CREATE =
      "insert into owner_usage (owner, scaled_usage, epoch) values :rows on conflict do nothing";

  /** Locks these owners' rows, in owner order. */
  private static final String LOCK =
      "select owner from owner_usage where owner in (:owners) order by owner for update";

  private static final String OF =
      "select owner, scaled_usage, epoch from owner_usage where owner in (:owners)";

  private static final String UPDATE =
      "update owner_usage set scaled_usage = :scaled, epoch = :epoch where owner = :owner";

  private static final String ALL = "select owner, scaled_usage, epoch from owner_usage";

  private final JdbcClient sql;
  private final TransactionTemplate tx;
  private final Duration halfLife;

  public OwnerUsageTable(JdbcTemplate jdbc, TransactionTemplate tx, Duration halfLife) {
    this.sql = JdbcClient.create(jdbc);
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
    tx.executeWithoutResult(
        status -> {
          List<String> owners = List.copyOf(amounts.keySet());
          lockRows(sql, owners, now);
          Map<String, Object[]> updates = new TreeMap<>();
          sql.sql(OF)
              .param("owners", owners)
              .query(
                  row -> {
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
                    updates.put(
                        owner,
                        new Object[] {scaled, OffsetDateTime.ofInstant(epoch, ZoneOffset.UTC)});
                  });
          updates.forEach(
              (owner, update) ->
                  sql.sql(UPDATE)
                      .param("scaled", update[0])
                      .param("epoch", update[1])
                      .param("owner", owner)
                      .update());
        });
  }

  /**
   * Locks these owners' rows, creating those missing with no usage, until the transaction ends: the
   * lock that submissions and claims of one owner take turns on, on every node ({@code
   * OwnerQueuedTable}, {@code JpaJobStore}). {@code sql} runs in the caller's transaction (a {@link
   * JdbcClient} over its data source joins it, JPA's included); {@code owners} in the order to lock
   * them.
   */
  static void lockRows(JdbcClient sql, List<String> owners, Instant now) {
    if (owners.isEmpty()) {
      return;
    }
    OffsetDateTime at = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
    List<Object[]> rows = new ArrayList<>(owners.size());
    for (String owner : owners) {
      rows.add(new Object[] {owner, 0, at});
    }
    sql.sql(CREATE).param("rows", rows).update();
    // Read to the end: the rows are locked as they are read.
    sql.sql(LOCK).param("owners", owners).query(String.class).list();
  }

  @Override
  public Map<String, Double> decayed(Instant now) {
    Map<String, Double> decayed = new HashMap<>();
    sql.sql(ALL)
        .query(
            row -> {
              Instant epoch = row.getObject(3, OffsetDateTime.class).toInstant();
              decayed.put(
                  row.getString(1), new RecentUsage(halfLife, epoch).decayed(stored(row), now));
            });
    return decayed;
  }

  /** An owner's scaled sum; none that is not a finite number counts. */
  private static double stored(ResultSet row) throws SQLException {
    double scaled = row.getDouble(2);
    return Double.isFinite(scaled) ? scaled : 0;
  }
}
