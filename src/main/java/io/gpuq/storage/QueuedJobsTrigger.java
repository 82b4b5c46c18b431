package io.gpuq.storage;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.WeakHashMap;
import org.h2.api.Trigger;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;

/**
 * Keeps {@code owner_queued} (each owner's queued jobs) on H2 as job rows are inserted, moved or
 * deleted, in the transaction that writes them (migrations V22 and V29; PostgreSQL does the same in
 * PL/pgSQL). A row whose state does not change, or changes between two states other than {@code
 * QUEUED}, counts nothing.
 *
 * <p>Three triggers of this class for each of insert, update and delete, told apart by their names'
 * ends (V29): {@value #BEGIN}, before the statement, forgets what an earlier statement that failed
 * half-way counted; the row trigger counts each row's change by owner; {@value #END}, after the
 * statement, adds each owner's count to their row, once. So a sweep's 10,000 trials, inserted in a
 * few statements, update the owner's row a few times rather than 10,000 (V22 updated it per row).
 */
public final class QueuedJobsTrigger implements Trigger {

  /** The end of the name of the trigger that runs before each statement. */
  public static final String BEGIN = "_begin";

  /** The end of the name of the trigger that runs after each statement. */
  public static final String END = "_end";

  private static final String QUEUED = "QUEUED";
  private static final String ADD = "update owner_queued set jobs = jobs + ? where owner = ?";
  private static final String CREATE =
      "insert into owner_queued (owner, jobs) values (?, 0) on conflict do nothing";

  /**
   * What each session's statement under way has counted so far, by owner. A session runs one
   * statement at a time; one that is closed is forgotten with it.
   */
  private static final Map<Object, Map<String, Long>> COUNTED =
      Collections.synchronizedMap(new WeakHashMap<>());

  private enum Role {
    BEGIN,
    ROW,
    END
  }

  private Role role = Role.ROW;
  private int owner = -1;
  private int state = -1;

  @Override
  public void init(
      Connection connection, String schema, String trigger, String table, boolean before, int type)
      throws SQLException {
    String name = trigger.toLowerCase(Locale.ROOT);
    if (name.endsWith(BEGIN)) {
      role = Role.BEGIN;
      return;
    }
    if (name.endsWith(END)) {
      role = Role.END;
      return;
    }
    // The row's columns by position, as the table has them now: H2 makes its triggers again when
    // a column is added.
    try (ResultSet columns = connection.getMetaData().getColumns(null, schema, table, null)) {
      while (columns.next()) {
        String column = columns.getString("COLUMN_NAME").toLowerCase(Locale.ROOT);
        int position = columns.getInt("ORDINAL_POSITION") - 1;
        if (column.equals("owner")) {
          owner = position;
        } else if (column.equals("state")) {
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
    Object session = sessionOf(connection);
    switch (role) {
      case BEGIN -> COUNTED.remove(session);
      case ROW -> count(session, oldRow, newRow);
      case END -> {
        Map<String, Long> counted = COUNTED.remove(session);
        if (counted != null) {
          addAll(connection, session, counted);
        }
      }
    }
  }

  private void count(Object session, Object[] oldRow, Object[] newRow) {
    boolean wasQueued = oldRow != null && QUEUED.equals(oldRow[state]);
    boolean isQueued = newRow != null && QUEUED.equals(newRow[state]);
    if (wasQueued == isQueued) {
      return;
    }
    Object[] row = isQueued ? newRow : oldRow;
    COUNTED
        .computeIfAbsent(session, s -> new java.util.HashMap<>())
        .merge((String) row[owner], isQueued ? 1L : -1L, Long::sum);
  }

  private static void addAll(Connection connection, Object session, Map<String, Long> counted)
      throws SQLException {
    // A statement trigger's statements run in the session's mode: in auto-commit, each would
    // commit, which H2 refuses inside a trigger. Held off here, the triggering statement's own
    // commit (or rollback) takes them with it.
    SessionLocal local = session instanceof SessionLocal embedded ? embedded : null;
    boolean autoCommit = local != null && local.getAutoCommit();
    if (autoCommit) {
      local.setAutoCommit(false);
    }
    try {
      // In owner order, so that two statements adding for the same owners lock their rows in the
      // same order.
      for (Map.Entry<String, Long> each : new TreeMap<>(counted).entrySet()) {
        if (each.getValue() != 0) {
          add(connection, each.getKey(), each.getValue());
        }
      }
    } finally {
      if (autoCommit) {
        local.setAutoCommit(true);
      }
    }
  }

  /** H2 hands each trigger call a connection of its own, over the statement's session. */
  private static Object sessionOf(Connection connection) throws SQLException {
    return connection.unwrap(JdbcConnection.class).getSession();
  }

  private static void add(Connection connection, String owner, long jobs) throws SQLException {
    if (update(connection, owner, jobs) == 0) {
      // The owner's first queued job: a row to add to, made by whichever of two such statements
      // of the same owner comes first.
      try (PreparedStatement create = connection.prepareStatement(CREATE)) {
        create.setString(1, owner);
        create.executeUpdate();
      }
      update(connection, owner, jobs);
    }
  }

  private static int update(Connection connection, String owner, long jobs) throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(ADD)) {
      update.setLong(1, jobs);
      update.setString(2, owner);
      return update.executeUpdate();
    }
  }
}
