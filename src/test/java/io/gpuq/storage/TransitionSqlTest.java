package io.gpuq.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.job.JobTransition;
import org.junit.jupiter.api.Test;

/** The SQL of a transition, written from its description in {@link JobTransition}. */
class TransitionSqlTest {

  @Test
  void the_sql_of_a_success_is_written_from_its_description() {
    TransitionSql succeed = new TransitionSql(JobTransition.SUCCEED);

    assertThat(succeed.updateJob(true))
        .isEqualTo(
            "update jobs set state = ?, finished_at = ?, exit_code = ?, version = version + 1"
                + " where id = ? and attempt = ? and state in (?)");
    assertThat(succeed.updateAttempt())
        .isEqualTo(
            "update job_attempts set outcome = ?, failure_reason = ?, failure_message = ?,"
                + " exit_code = ?, finished_at = ? where job_id = ? and attempt = ?");
  }

  @Test
  void the_sql_of_a_requeue_after_preemption_counts_the_requeue_in_the_row_itself() {
    TransitionSql requeue = new TransitionSql(JobTransition.REQUEUE_AFTER_PREEMPTION);

    assertThat(requeue.updateJob(true))
        .contains("requeues = requeues + 1", "preempt_reason = null", "preempted_for = null")
        .startsWith("update jobs set state = ?, attempt = ?,");
  }

  @Test
  void the_sql_of_a_start_clears_with_null_and_inserts_the_attempt_it_opens() {
    TransitionSql start = new TransitionSql(JobTransition.START);

    assertThat(start.updateJob(false))
        .isEqualTo(
            "update jobs set state = ?, placement = ?, node = ?, started_at = ?,"
                + " failure_reason = null, failure_message = null, exit_code = null,"
                + " held_on = null, version = version + 1 where id = ? and state in (?)");
    assertThat(start.insertAttempt())
        .isEqualTo(
            "insert into job_attempts (job_id, attempt, node, placement, budget_bytes, started_at)"
                + " values (?, ?, ?, ?, ?, ?)");
  }
}
