package io.gpuq.wiring;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;

/**
 * Drops from the pool a connection whose embedded H2 database has closed. H2 closes its database
 * when a write fails (no space left on the data directory's disk), and every statement on the
 * connections it had then fails with "The database has been closed"; Hikari keeps them, since that
 * error's SQL state is not a connection error's ({@code 08...}). Dropped, they give way to new
 * connections, which open the database again as soon as there is space: gpuq recovers without a
 * restart. Other errors (and PostgreSQL's) are judged as Hikari does.
 */
public final class ClosedDatabaseEviction implements SQLExceptionOverride {

  /** H2's DATABASE_IS_CLOSED and DATABASE_CALLED_AT_SHUTDOWN. */
  private static final int DATABASE_IS_CLOSED = 90098;

  private static final int DATABASE_CALLED_AT_SHUTDOWN = 90121;

  @java.lang.Override // the interface's own Override enum hides the annotation's simple name
  public Override adjudicate(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql
          && (sql.getErrorCode() == DATABASE_IS_CLOSED
              || sql.getErrorCode() == DATABASE_CALLED_AT_SHUTDOWN)) {
        return Override.MUST_EVICT;
      }
    }
    return Override.CONTINUE_EVICT;
  }
}
