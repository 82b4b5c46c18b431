package db.migration;

import java.sql.SQLException;
import org.flywaydb.core.api.migration.Context;

/**
 * What the Java migrations ask of the database they run on: they exist because H2 and PostgreSQL
 * spell some statements differently. Not a migration itself (Flyway runs only what implements
 * {@code JavaMigration}).
 */
final class Databases {

  private Databases() {}

  /** Whether the migration runs on PostgreSQL (else on H2). */
  static boolean isPostgres(Context context) throws SQLException {
    return context
        .getConnection()
        .getMetaData()
        .getDatabaseProductName()
        .equalsIgnoreCase("PostgreSQL");
  }
}
