package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.storage.JobRepository;
import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestContextManager;

/**
 * Valid and mutated job bodies, query parameters and path ids against the shared gpuq: every answer
 * is a 2xx, or a 4xx problem; none is a 5xx; and a 4xx stores nothing.
 *
 * <p>jqwik does not run JUnit Jupiter's Spring extension: the shared context (the one every {@link
 * IntegrationTest} uses) is joined through Spring's {@link TestContextManager} instead.
 */
class ApiFuzzProperties extends IntegrationTest {

  /** Marks the jobs this class creates, so that it can wait for them to end. */
  private static final String RUN = UUID.randomUUID().toString();

  private static final List<String> ODD_VALUES =
      List.of(
          "1.5",
          "1.0",
          "-1",
          "0",
          "1",
          "99999999999",
          "1e400",
          "-0",
          "\"1\"",
          "\"0.5\"",
          "\"\"",
          "\" \"",
          "true",
          "null",
          "[]",
          "{}",
          "[1,2]",
          "[\"a\",null]",
          "{\"a\":1}",
          "{\"a\":\"b\",\"a\":\"c\"}",
          "\"\\u0000\"",
          "\"a\\nb\"",
          "\"\\ud800\"",
          "\"\\udc00x\"",
          "\"PT0.0001S\"",
          "\"PT9999999999999H\"",
          "\"-PT1S\"",
          "\"" + "9".repeat(5000) + "\"",
          "\"" + "x".repeat(300) + "\"",
          "\"6GiB\"",
          "\"../x\"",
          "\"/tmp\"",
          "\"caffe\"");

  private static final List<String> FIELDS =
      List.of(
          "name",
          "command",
          "workingDir",
          "env",
          "framework",
          "resources",
          "priority",
          "timeout",
          "retry",
          "labels",
          "nodeSelector",
          "comand");

  @Autowired JobRepository repository;

  private HttpApi user;
  private HttpApi root;

  @BeforeProperty
  void joinTheSharedGpuq() throws Exception {
    new TestContextManager(getClass()).prepareTestInstance(this);
    user = new HttpApi(port, ALICE_TOKEN);
    root = user.as(ADMIN_TOKEN);
  }

  @Property(tries = 200)
  void a_submission_is_2xx_or_a_4xx_problem_that_stores_nothing(@ForAll("bodies") String body) {
    long before = repository.count();

    HttpApi.Response response = user.post("/api/v1/jobs", body);

    assertAnsweredWell(response, body);
    if (response.status() >= 400) {
      assertThat(repository.count()).as(body).isEqualTo(before);
    }
  }

  @Property(tries = 100)
  void a_listing_is_2xx_or_a_4xx_problem(@ForAll("queries") String query) {
    assertAnsweredWell(user.get("/api/v1/jobs?" + query), query);
  }

  @Property(tries = 100)
  void a_job_path_is_2xx_or_a_4xx_problem(
      @ForAll("ids") String id, @ForAll("jobPaths") String suffix) {
    long before = repository.count();
    String path = "/api/v1/jobs/" + id + suffix;

    HttpApi.Response response =
        suffix.equals("/cancel") ? user.post(path) : user.getBounded(path, 64 * 1024);

    assertAnsweredWell(response, path);
    assertThat(repository.count()).isEqualTo(before);
  }

  @AfterProperty
  void jobsOfThisRunHaveEnded() {
    // Later test classes share this gpuq: leave it idle. Each job here runs `true`.
    await().atMost(Duration.ofMinutes(3)).until(() -> noJobs("QUEUED") && noJobs("RUNNING"));
  }

  private boolean noJobs(String state) {
    return root.get("/api/v1/jobs?state=" + state + "&label=fuzz:" + RUN)
        .json()
        .get("items")
        .isEmpty();
  }

  private void assertAnsweredWell(HttpApi.Response response, String request) {
    int status = response.status();
    assertThat(status).as("%s -> %s", request, response.body()).isBetween(200, 499);
    if (status >= 400) {
      assertThat(response.contentType()).as(request).startsWith("application/problem+json");
      assertThat(response.json().get("status").asInt()).isEqualTo(status);
    }
  }

  @Provide
  Arbitrary<String> bodies() {
    Arbitrary<Map<String, String>> valid =
        Combinators.combine(
                Arbitraries.of("[\"true\"]", "[\"sh\",\"-c\",\"exit 0\"]"),
                Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(20),
                Arbitraries.integers().between(-1000, 1000),
                Arbitraries.of("\"PT1H\"", "\"PT1S\"", "\"P1D\"", "null"),
                Arbitraries.integers().between(0, 9999))
            .as(
                (command, name, priority, timeout, n) -> {
                  Map<String, String> fields = new LinkedHashMap<>();
                  fields.put("command", command);
                  fields.put("name", quote(name));
                  fields.put("resources", "{\"gpus\":0}");
                  fields.put("priority", String.valueOf(priority));
                  fields.put("timeout", timeout);
                  fields.put("labels", "{\"fuzz\":\"" + RUN + "\",\"try\":\"" + n + "\"}");
                  return fields;
                });
    Arbitrary<String> odd =
        Arbitraries.oneOf(
            Arbitraries.of(ODD_VALUES),
            Arbitraries.strings().all().ofMaxLength(40).map(ApiFuzzProperties::quote));
    Arbitrary<List<Mutation>> mutations =
        Combinators.combine(
                Arbitraries.of(Mutation.Kind.values()),
                Arbitraries.of(FIELDS),
                odd,
                Arbitraries.integers().between(0, 10_000))
            .as(Mutation::new)
            .list()
            .ofMaxSize(2);
    return Combinators.combine(valid, mutations).as(ApiFuzzProperties::render);
  }

  private record Mutation(Kind kind, String field, String value, int position) {
    enum Kind {
      SET_FIELD,
      SET_RESOURCE,
      SET_LABEL,
      DUPLICATE_FIELD,
      TRUNCATE,
      INSERT_CHARACTER
    }
  }

  private static String render(Map<String, String> valid, List<Mutation> mutations) {
    Map<String, String> fields = new LinkedHashMap<>(valid);
    List<String> duplicates = new ArrayList<>();
    for (Mutation m : mutations) {
      switch (m.kind()) {
        case SET_FIELD -> fields.put(m.field(), m.value());
        case SET_RESOURCE ->
            fields.put(
                "resources",
                "{\"gpus\":0,\""
                    + List.of("gpus", "gpuMemory", "gpuFraction").get(m.position() % 3)
                    + "\":"
                    + m.value()
                    + "}");
        case SET_LABEL ->
            fields.put(
                "labels",
                "{\"fuzz\":\"" + RUN + "\",\"k" + m.position() % 3 + "\":" + m.value() + "}");
        case DUPLICATE_FIELD -> duplicates.add("\"" + m.field() + "\":" + m.value());
        default -> {}
      }
    }
    List<String> members = new ArrayList<>();
    fields.forEach((k, v) -> members.add(quote(k) + ":" + v));
    members.addAll(duplicates);
    String body = "{" + String.join(",", members) + "}";
    for (Mutation m : mutations) {
      int at = m.position() % (body.length() + 1);
      if (m.kind() == Mutation.Kind.TRUNCATE) {
        body = body.substring(0, at);
      } else if (m.kind() == Mutation.Kind.INSERT_CHARACTER) {
        body =
            body.substring(0, at) + m.value().charAt(m.value().length() / 2) + body.substring(at);
      }
    }
    return body;
  }

  @Provide
  Arbitrary<String> queries() {
    Arbitrary<String> value =
        Arbitraries.oneOf(
            Arbitraries.of(
                "QUEUED",
                "done",
                "0",
                "1",
                "1000",
                "1001",
                "-1",
                "1.5",
                "9999999999",
                "",
                "a:b",
                "fuzz:" + RUN,
                ":",
                "bm90LWFuLWlk",
                "%00",
                "%ff",
                "%2f",
                "a%3Ab"),
            Arbitraries.strings().all().ofMaxLength(30).map(ApiFuzzProperties::percentEncode));
    Arbitrary<String> parameter =
        Combinators.combine(
                Arbitraries.of("state", "label", "limit", "cursor", "other", "label[]"), value)
            .as((name, v) -> name + "=" + v);
    return parameter.list().ofMaxSize(4).map(ps -> String.join("&", ps));
  }

  @Provide
  Arbitrary<String> ids() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            "01ZZZZZZZZZZZZZZZZZZZZZZZZ",
            "nope",
            "%2f",
            "%00",
            "%2e%2e",
            "..",
            ".",
            "a;b=c",
            "%20",
            "~",
            "%ff",
            "%c0%af",
            "x".repeat(2000)),
        Arbitraries.strings()
            .all()
            .ofMinLength(1)
            .ofMaxLength(30)
            .map(ApiFuzzProperties::percentEncode));
  }

  @Provide
  Arbitrary<String> jobPaths() {
    return Arbitraries.of(
        "",
        "/cancel",
        "/logs",
        "/logs?tail=-1",
        "/logs?tail=x",
        "/logs?follow=maybe",
        "/",
        "/x",
        "/metrics",
        "/metrics?limit=0",
        "/metrics?limit=x",
        "/metrics?cursor=x",
        "/metrics?cursor=bTotMQ",
        "/metrics?cursor=bTo5OTk5OTk5OTk5OTk5OTk5OTk5",
        "/metrics?limit=1&cursor=bToy");
  }

  /** A JSON string: ASCII only, everything else as \\uXXXX (lone surrogates included). */
  private static String quote(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7e) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.append('"').toString();
  }

  /** Every byte but letters and digits as %XX, lone surrogates as Java's encoder makes them. */
  private static String percentEncode(String text) {
    StringBuilder out = new StringBuilder();
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
        out.append((char) c);
      } else {
        out.append(String.format("%%%02X", c));
      }
    }
    return out.toString();
  }
}
