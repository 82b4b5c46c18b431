package io.gpuq.retention;

import static io.gpuq.job.JobBuilder.aRunningJob;
import static io.gpuq.job.JobBuilder.aSucceededJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuq.fs.DataDirectory;
import io.gpuq.job.AdminOnlyException;
import io.gpuq.job.Caller;
import io.gpuq.job.InMemoryJobStore;
import io.gpuq.job.Job;
import io.gpuq.job.JobConflictException;
import io.gpuq.job.JobService;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("An admin deletes a job's files once no process of it can write them")
class JobFilesDeletionTest {

  private static final Caller ADMIN = new Caller("root", Caller.Role.ADMIN);

  private final InMemoryJobStore store = new InMemoryJobStore();
  private final JobService jobs = new JobService(store, Clock.systemUTC(), List.of());
  @TempDir Path root;

  private JobFilesDeletion deletion(Set<String> endsNotStoredYet) {
    return new JobFilesDeletion(
        jobs, new JobDirectories(new DataDirectory(root)), endsNotStoredYet::contains);
  }

  private Path filesOf(Job job) throws IOException {
    Files.createDirectories(root.resolve("jobs").resolve(job.id()));
    Files.writeString(root.resolve("jobs").resolve(job.id()).resolve("attempt-1.exit"), "0\n");
    Path work = Files.createDirectories(root.resolve("work").resolve(job.id()));
    Files.write(work.resolve("fill"), new byte[4096]);
    return work;
  }

  @Test
  void a_finished_jobs_directories_both_go() throws IOException {
    Job job = aSucceededJob().in(store);
    Path work = filesOf(job);

    deletion(Set.of()).delete(ADMIN, job.id());

    assertThat(work).doesNotExist();
    assertThat(root.resolve("jobs").resolve(job.id())).doesNotExist();
  }

  @Test
  void a_running_job_keeps_its_files() throws IOException {
    Job job = aRunningJob().on("node-1").in(store);
    Path work = filesOf(job);

    assertThatThrownBy(() -> deletion(Set.of()).delete(ADMIN, job.id()))
        .isInstanceOf(JobConflictException.class)
        .hasMessageContaining("is RUNNING");
    assertThat(work.resolve("fill")).exists();
  }

  @Test
  void a_job_whose_worker_ended_here_but_whose_end_is_not_stored_loses_its_work_directory_only()
      throws IOException {
    // Its record still says RUNNING: on a full disk the end could not be written yet.
    Job job = aRunningJob().on("node-1").in(store);
    Path work = filesOf(job);

    deletion(Set.of(job.id())).delete(ADMIN, job.id());

    assertThat(work).doesNotExist();
    assertThat(root.resolve("jobs").resolve(job.id()).resolve("attempt-1.exit"))
        .as("what its end is judged from after a restart")
        .exists();
  }

  @Test
  void a_submitter_may_not_even_for_their_own_job() throws IOException {
    Job job = aSucceededJob().in(store);
    Path work = filesOf(job);

    assertThatThrownBy(
            () ->
                deletion(Set.of()).delete(new Caller(job.owner(), Caller.Role.SUBMITTER), job.id()))
        .isInstanceOf(AdminOnlyException.class);
    assertThat(work.resolve("fill")).exists();
  }
}
