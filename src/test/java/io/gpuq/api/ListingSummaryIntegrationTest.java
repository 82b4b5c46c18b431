package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import io.gpuq.support.JobJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 34: an admin's queue page of 100 jobs of half a megabyte each was a 19 MiB answer, fetched
 * again at each refresh. A listing carries a bounded summary of each job; its own GET the rest.
 */
@DisplayName("A listing carries a bounded summary of each job; the job's own answer all of it")
class ListingSummaryIntegrationTest extends IntegrationTest {

  private static final int JOBS = 8;

  /**
   * About 0.5 MB as JSON: 80,000 control characters (each six characters escaped) in an argument,
   * and 64 labels of 256 characters.
   */
  private static String aHalfMegabyteJob(String tag) {
    JobJson job =
        aJob().cpuOnly().command("true", "\u0001".repeat(80_000), "last").label("tag", tag);
    for (int n = 0; n < 63; n++) {
      job.label("l" + n, "v".repeat(256));
    }
    return job.json();
  }

  @Test
  void a_page_of_large_jobs_is_a_small_answer_and_each_job_is_whole_on_its_own() {
    String tag = UUID.randomUUID().toString();
    List<String> ids = new ArrayList<>();
    for (int n = 0; n < JOBS; n++) {
      ids.add(alice.submit(aHalfMegabyteJob(tag)));
    }

    HttpApi.Response page = admin.get("/api/v1/jobs?label=tag:" + tag);

    assertThat(page.status()).isEqualTo(200);
    // 4 MB before. Each job's summary is under 12 KiB, its 1,024 characters of command 6 KiB
    // here: a control character is six as JSON ("\u0001").
    assertThat(page.body().getBytes(StandardCharsets.UTF_8).length).isLessThan(JOBS * 12 * 1024);
    JsonNode items = page.json().get("items");
    assertThat(items).hasSize(JOBS);
    for (JsonNode item : items) {
      JsonNode command = item.get("command");
      assertThat(command).hasSize(2);
      assertThat(command.get(0).asString()).isEqualTo("true");
      assertThat(command.get(1).asString()).hasSize(1024 - 4).endsWith("…");
      assertThat(item.get("labels").size()).isEqualTo(16);
      item.get("labels")
          .forEach(value -> assertThat(value.asString().length()).isLessThanOrEqualTo(64));
      List<String> truncated = new ArrayList<>();
      item.get("truncated").forEach(field -> truncated.add(field.asString()));
      assertThat(truncated).containsExactly("command", "labels");
      assertThat(item.has("env")).isFalse();
    }

    JsonNode whole = alice.job(ids.get(0));
    assertThat(whole.get("command")).hasSize(3);
    assertThat(whole.get("command").get(1).asString()).hasSize(80_000);
    assertThat(whole.get("labels").size()).isEqualTo(64);
    assertThat(whole.get("labels").get("l0").asString()).hasSize(256);
    assertThat(whole.has("truncated")).isFalse();
  }

  @Test
  void a_small_job_is_listed_whole_and_says_nothing_was_cut() {
    String tag = UUID.randomUUID().toString();
    String id =
        alice.submit(aJob().cpuOnly().command("echo", "two words").label("tag", tag).json());

    JsonNode item = alice.get("/api/v1/jobs?label=tag:" + tag).json().get("items").get(0);

    assertThat(item.get("id").asString()).isEqualTo(id);
    assertThat(item.get("command").get(1).asString()).isEqualTo("two words");
    assertThat(item.get("labels").get("tag").asString()).isEqualTo(tag);
    assertThat(item.has("truncated")).isFalse();
  }
}
