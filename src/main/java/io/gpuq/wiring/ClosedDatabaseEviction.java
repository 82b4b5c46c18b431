package io.gpuq.wiring;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;

/**
 * Drops from the pool the connections of an embedded H2 database that has closed. H2 closes its
 * database when a write fails (no space left on the data directory's disk), and every statement on
 * the connections it had then fails with "The database has been closed"; Hikari keeps them, since
 * that error's SQL state is not a connection error's ({@code 08...}), and it cannot tell, since
 * they still say they are valid. Dropped, they give way to new connections, which open the database
 * again (reads work on a full disk; writes once there is space): gpuq recovers without a restart.
 *
 * <p>All of them are dropped at the first sign, the failed write itself or the first statement that
 * meets the closed database: dropping only the connection that met it left the others for whatever
 * request took one next, which answered 500 (issue 34: an admin's {@code DELETE
 * /api/v1/jobs/{id}/files} while the disk was full). Other errors (and PostgreSQL's) are judged as
 * Hikari does.
 */
public final class ClosedDatabaseEviction implements SQLExceptionOverride {

  /** H2's DATABASE_IS_CLOSED and DATABASE_CALLED_AT_SHUTDOWN. */
  private static final int DATABASE_IS_CLOSED = 90098;

  private static final int DATABASE_CALLED_AT_SHUTDOWN = 90121;

  /** H2's GENERAL_ERROR, which a failed write of its store comes as. */
  private static final int GENERAL_ERROR = 50000;

  // H2 is a runtime dependency only: its store's exception is known by name.
  private static final String STORE_EXCEPTION = "org.h2.mvstore.MVStoreException";

  private final Runnable dropAll;

  /** Drops the connection that met the closed database, and all others with {@code dropAll}. */
  public ClosedDatabaseEviction(Runnable dropAll) {
    this.dropAll = dropAll;
  }

  /** Makes the pool drop all its connections when its H2 database closes; before it starts. */
  public static void install(HikariDataSource pool) {
    pool.setExceptionOverride(
        new ClosedDatabaseEviction(
            () -> {
              HikariPoolMXBean started = pool.getHikariPoolMXBean();
              if (started != null) {
                started.softEvictConnections();
              }
            }));
  }

  @java.lang.Override // the interface's own Override enum hides the annotation's simple name
  public Override adjudicate(SQLException e) {
    if (closesTheDatabase(e)) {
      // Idle connections close at once, those in use when they are given back.
      dropAll.run();
      return Override.MUST_EVICT;
    }
    return Override.CONTINUE_EVICT;
  }

  private static boolean closesTheDatabase(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql
          && (sql.getErrorCode() == DATABASE_IS_CLOSED
              || sql.getErrorCode() == DATABASE_CALLED_AT_SHUTDOWN
              || (sql.getErrorCode() == GENERAL_ERROR && hasStoreException(sql)))) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasStoreException(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getClass().getName().equals(STORE_EXCEPTION)) {
        return true;
      }
    }
    return false;
  }
}
