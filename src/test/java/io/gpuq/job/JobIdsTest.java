package io.gpuq.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Job ids")
class JobIdsTest {

  @Test
  void carry_the_millisecond_their_job_was_created_in() {
    Instant created = Instant.parse("2026-11-29T12:34:56.789Z");
    String id = new JobIds(Clock.fixed(created, ZoneOffset.UTC)).next();

    assertThat(JobIds.creationTime(id)).contains(created);
  }

  @Test
  void a_name_that_is_not_a_job_id_has_no_creation_time() {
    assertThat(JobIds.creationTime("lost+found")).isEmpty();
    assertThat(JobIds.creationTime("01JDXYZ0000000000000000000".toLowerCase())).isEmpty();
    assertThat(JobIds.creationTime("01JDXYZ000000000000000000U"))
        .as("U is not Crockford")
        .isEmpty();
  }
}
