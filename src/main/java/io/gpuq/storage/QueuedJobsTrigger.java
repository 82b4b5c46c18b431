package io.gpuq.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.h2.api.Trigger;

/**
 * Keeps {@code owner_queued} (each owner's queued jobs) on H2 as a job row is inserted, moved or
 * deleted, in the transaction that writes the row (migration V22; PostgreSQL does the same in
 * PL/pgSQL). A row whose state does not change, or changes between two states other than {@code
 * QUEUED}, writes nothing.
 */
public final class QueuedJobsTrigger implements Trigger {

  private static final String QUEUED = "QUEUED";
  private static final String ADD = "update owner_queued set jobs = jobs + ? where owner = ?";
  private static final String CREATE =
      "insert into owner_queued (owner, jobs) values (?, 0) on conflict do nothing";

  private int owner = -1;
  private int state = -1;

  @Override
  public void init(
      Connection connection, String schema, String trigger, String table, boolean before, int type)
      throws SQLException {
    // The row's columns by position, as the table has them now: H2 makes its triggers again when
    // a column is added.
    try (ResultSet columns = connection.getMetaData().getColumns(null, schema, table, null)) {
      while (columns.next()) {
        String name = columns.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
        int position = columns.getInt("ORDINAL_POSITION") - 1;
        if (name.equals("owner")) {
          owner = position;
        } else if (name.equals("state")) {
          state = position;
        }
      }
    }
    if (owner < 0 || state < 0) {
      throw new SQLException("table " + table + " has no owner or no state column");
    }
  }

  @Override
  public void fire(Connection connection, Object[] oldRow, Object[] newRow) throws SQLException {
    boolean wasQueued = oldRow != null && QUEUED.equals(oldRow[state]);
    boolean isQueued = newRow != null && QUEUED.equals(newRow[state]);
    if (wasQueued == isQueued) {
      return;
    }
    Object[] row = isQueued ? newRow : oldRow;
    add(connection, (String) row[owner], isQueued ? 1 : -1);
  }

  private static void add(Connection connection, String owner, int jobs) throws SQLException {
    if (update(connection, owner, jobs) == 0) {
      // The owner's first queued job: a row to add to, made by whichever of two such jobs of the
      // same owner comes first.
      try (PreparedStatement create = connection.prepareStatement(CREATE)) {
        create.setString(1, owner);
        create.executeUpdate();
      }
      update(connection, owner, jobs);
    }
  }

  private static int update(Connection connection, String owner, int jobs) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(ADD)) {
      update.setInt(1, jobs);
      update.setString(2, owner);
      return update.executeUpdate();
    }
  }
}
