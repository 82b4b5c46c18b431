package io.gpuq.api;

import java.sql.SQLException;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.transaction.CannotCreateTransactionException;

/**
 * Whether a request failed because the database could not serve it just then, rather than because
 * of the request: then the same request may well succeed in a moment (a 503, not a 500).
 *
 * <p>Seen for real (issue 34, {@code ClosedDatabaseAnswerIntegrationTest}): on a full disk, a write
 * that fails makes H2 close its database, and a request whose transaction held a connection then
 * fails with Spring's {@code JpaSystemException} ("Unable to commit against JDBC Connection"),
 * caused by H2's GENERAL_ERROR 50000 with the store's {@code MVStoreException} ("No space left on
 * device") among its causes; later statements on such a connection fail with 90098 (database
 * closed) or 90028 (I/O error), and reopening it may fail ({@code
 * CannotCreateTransactionException}). A request waiting for a row that a failing write held may
 * instead give up on the lock ({@code CannotAcquireLockException}, H2's 50200). The pool reopens
 * the database meanwhile ({@code wiring.ClosedDatabaseEviction}).
 */
final class DatabaseUnavailable {

  /** H2's DATABASE_IS_CLOSED, DATABASE_CALLED_AT_SHUTDOWN and IO_EXCEPTION_2. */
  private static final int DATABASE_IS_CLOSED = 90098;

  private static final int DATABASE_CALLED_AT_SHUTDOWN = 90121;
  private static final int IO_EXCEPTION = 90028;

  /** H2's GENERAL_ERROR, which a failed write of its store comes as. */
  private static final int GENERAL_ERROR = 50000;

  // H2 is a runtime dependency only: its store's exception is known by name.
  private static final String STORE_EXCEPTION = "org.h2.mvstore.MVStoreException";

  private DatabaseUnavailable() {}

  static boolean is(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CannotAcquireLockException
          || t instanceof DataAccessResourceFailureException
          || t instanceof CannotCreateTransactionException) {
        return true;
      }
      if (t instanceof SQLException sql && closedDatabase(sql)) {
        return true;
      }
    }
    return false;
  }

  private static boolean closedDatabase(SQLException sql) {
    return switch (sql.getErrorCode()) {
      case DATABASE_IS_CLOSED, DATABASE_CALLED_AT_SHUTDOWN, IO_EXCEPTION -> true;
      case GENERAL_ERROR -> storeFailed(sql);
      default -> false;
    };
  }

  private static boolean storeFailed(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t.getClass().getName().equals(STORE_EXCEPTION)) {
        return true;
      }
    }
    return false;
  }
}
