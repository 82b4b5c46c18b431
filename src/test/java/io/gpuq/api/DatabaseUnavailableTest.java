package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.orm.jpa.JpaSystemException;

@DisplayName("A database that could not serve a request just then is told from a request's fault")
class DatabaseUnavailableTest {

  @Test
  void a_closed_or_failing_h2_database_and_a_lock_given_up_on_are_unavailable() {
    assertThat(DatabaseUnavailable.is(commitFailed(new SQLException("closed", "90098", 90098))))
        .isTrue();
    assertThat(DatabaseUnavailable.is(commitFailed(new SQLException("io", "08000", 90028))))
        .isTrue();
    assertThat(DatabaseUnavailable.is(new CannotAcquireLockException("lock timeout"))).isTrue();
  }

  @Test
  void other_errors_of_the_database_stay_errors() {
    assertThat(DatabaseUnavailable.is(commitFailed(new SQLException("syntax", "42001", 42001))))
        .isFalse();
    // GENERAL_ERROR without the store's failure among its causes: not a full disk.
    assertThat(DatabaseUnavailable.is(commitFailed(new SQLException("general", "HY000", 50000))))
        .isFalse();
    assertThat(DatabaseUnavailable.is(new DataIntegrityViolationException("duplicate"))).isFalse();
  }

  private static JpaSystemException commitFailed(SQLException cause) {
    return new JpaSystemException(new RuntimeException("Unable to commit", cause));
  }
}
