package io.gpuq.storage;

import io.gpuq.backup.OnlineCopy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** H2's {@code BACKUP TO}: a consistent copy of the embedded database while gpuq writes on. */
public final class H2OnlineCopy implements OnlineCopy {

  private final DataSource database;

  public H2OnlineCopy(DataSource database) {
    this.database = database;
  }

  @Override
  public void copyTo(Path zip) {
    try (Connection connection = database.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("BACKUP TO '" + zip.toString().replace("'", "''") + "'");
    } catch (SQLException e) {
      throw new IllegalStateException("H2 could not back up the database: " + e.getMessage(), e);
    }
  }
}
