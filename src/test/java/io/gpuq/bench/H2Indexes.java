package io.gpuq.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The secondary indexes of the job tables on H2, dropped before a bulk load and created again after
 * it, as H2's own {@code SCRIPT} writes them (so that the bench rebuilds exactly what Flyway made).
 * Indexes that back a constraint (the primary keys, the foreign keys) stay.
 */
final class H2Indexes {

  private static final Pattern INDEX_OF_A_JOB_TABLE =
      Pattern.compile(
          "CREATE (?:UNIQUE )?INDEX (\"[^\"]+\"\\.\"[^\"]+\") ON \"[^\"]+\"\\."
              + "\"(?:jobs|job_labels|job_attempts)\"",
          Pattern.CASE_INSENSITIVE);

  private H2Indexes() {}

  /** Drops them and returns the statements that create them again. */
  static List<String> dropSecondary(Connection c) throws SQLException {
    List<String> creates = new ArrayList<>();
    List<String> names = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet script = s.executeQuery("script nodata")) {
      while (script.next()) {
        String statement = script.getString(1);
        Matcher index = INDEX_OF_A_JOB_TABLE.matcher(statement);
        if (index.lookingAt()) {
          creates.add(statement);
          names.add(index.group(1));
        }
      }
    }
    try (Statement s = c.createStatement()) {
      for (String name : names) {
        s.execute("drop index " + name);
      }
    }
    return creates;
  }

  static void create(Connection c, List<String> creates) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String create : creates) {
        s.execute(create);
      }
    }
  }
}
