package io.gpuq.api;

import static io.gpuq.support.JobJson.aJob;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.support.HttpApi;
import io.gpuq.support.IntegrationTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/** The web page's files and headers over plain HTTP, as any client (or attacker) sees them. */
@DisplayName("The web page over plain HTTP")
class WebUiHttpTest extends IntegrationTest {

  private HttpApi anonymous() {
    return alice.as(null);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "/ui/",
        "/ui/index.html",
        "/ui/app.js",
        "/ui/api.js",
        "/ui/dom.js",
        "/ui/charts.js",
        "/ui/queue.js",
        "/ui/job.js",
        "/ui/gpus.js",
        "/ui/sweeps.js",
        "/ui/storage.js",
        "/ui/ui.css",
        "/ui/favicon.svg",
        "/ui/no-such-file.js",
        "/ui",
        "/"
      })
  @DisplayName("every answer under /ui/ carries the security headers and needs no token")
  void every_ui_answer_carries_the_security_headers(String path) {
    HttpApi.Response response = anonymous().get(path);

    assertThat(response.status()).isIn(200, 302, 404);
    assertThat(response.headers().firstValue("Content-Security-Policy"))
        .hasValueSatisfying(
            csp ->
                assertThat(csp)
                    .startsWith("default-src 'self'")
                    .contains("frame-ancestors 'none'")
                    .doesNotContain("unsafe-inline")
                    .doesNotContain("unsafe-eval"));
    assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(response.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
    assertThat(response.headers().firstValue("Set-Cookie")).isEmpty();
  }

  /**
   * Issue 34: these answers lacked the headers, some refused by Tomcat before any filter ran (an
   * encoded '/' or NUL), some by a filter ahead of the headers' (a dot segment), some whose path
   * Tomcat normalised out of /ui/. Sent byte for byte: an HTTP client would re-encode them.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "GET /ui/%2e%2e/api/v1/jobs",
        "GET /ui/%2E%2E/%2e%2E/actuator/prometheus",
        "GET /ui/../api/v1/jobs",
        "GET /ui/..;/api/v1/jobs",
        "GET /ui/./index.html",
        "GET /ui/%2e/index.html",
        "GET /ui/.%2e/api/v1/jobs",
        "GET /ui/%00",
        "GET /ui/app.js%00.html",
        "GET /ui/%2f",
        "GET /ui/%2F..%2F..%2Fetc%2Fpasswd",
        "GET /ui/%5c..%5capi",
        "GET /ui/%ff%fe",
        "GET /ui/%",
        "GET /ui/%zz",
        "GET /ui/%252e%252e/api/v1/jobs",
        "GET /ui%00",
        "GET /ui%2f",
        "GET /ui;a=b/",
        "GET /ui/index.html;a=b",
        "GET /ui/{}",
        "GET /ui/?a=|<>",
        "GET //ui//no-such-file.js",
        "GET /%75i/",
        "POST /ui/",
        "DELETE /ui/index.html",
        "PUT /ui/app.js",
        "OPTIONS /ui/",
        "TRACE /ui/",
      })
  @DisplayName("every answer under /ui/, an error for a hostile path included, carries the headers")
  void every_answer_under_ui_carries_the_headers_whatever_the_path(String request)
      throws IOException {
    String answer = rawRequest(request);

    String head = answer.substring(0, Math.max(0, answer.indexOf("\r\n\r\n")));
    assertThat(head).as(request).startsWith("HTTP/1.1 ");
    assertThat(head)
        .as(request)
        .containsIgnoringCase("\r\nContent-Security-Policy: " + UiHeaders.CONTENT_SECURITY_POLICY)
        .containsIgnoringCase("\r\nX-Content-Type-Options: nosniff")
        .containsIgnoringCase("\r\nReferrer-Policy: no-referrer")
        .containsIgnoringCase("\r\nX-Frame-Options: DENY");
  }

  @Test
  @DisplayName("/ and /ui redirect to /ui/, which is the page")
  void the_root_redirects_to_the_page() {
    for (String path : List.of("/", "/ui")) {
      HttpApi.Response redirect = anonymous().get(path);
      assertThat(redirect.status()).isEqualTo(302);
      assertThat(redirect.headers().firstValue("Location").orElseThrow()).endsWith("/ui/");
    }
    HttpApi.Response page = anonymous().get("/ui/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.contentType()).startsWith("text/html");
    assertThat(page.body()).contains("<script type=\"module\" src=\"app.js\"></script>");
  }

  @Test
  @DisplayName("the page's markup has no inline script or style, which the policy would refuse")
  void the_markup_has_no_inline_script_or_style() {
    String html = anonymous().get("/ui/").body();

    assertThat(html).doesNotContainPattern("<script(?![^>]*\\bsrc=)[^>]*>");
    assertThat(html)
        .doesNotContain("<style")
        .doesNotContainPattern("\\sstyle=")
        .doesNotContainPattern("\\son[a-z]+=");
    assertThat(anonymous().get("/ui/app.js").contentType()).startsWith("text/javascript");
  }

  @Test
  @DisplayName("the API still needs a token, and only GETs of the page are open")
  void only_the_pages_files_are_open() throws IOException {
    assertThat(anonymous().get("/api/v1/jobs").status()).isEqualTo(401);
    assertThat(anonymous().post("/ui/index.html").status()).isEqualTo(401);
    // Sent as written: /ui/../ would be the API once normalised; no path with a dot segment is
    // served at all (404 problem+json), so the open page's prefix never opens the API.
    assertThat(rawGet("/ui/../api/v1/jobs"))
        .startsWith("HTTP/1.1 404")
        .contains("application/problem+json")
        .doesNotContain("\"items\"");
    assertThat(rawGet("/ui/%2e%2e/api/v1/jobs")).matches("(?s)HTTP/1.1 (400|401|404).*");
  }

  @Test
  @DisplayName("listings answer a weak ETag, and 304 with no body while nothing changed")
  void listings_answer_304_while_nothing_changed() {
    for (String path : List.of("/api/v1/jobs?limit=5", "/api/v1/gpus", "/api/v1/sweeps")) {
      HttpApi.Response first = admin.get(path);
      String etag = first.headers().firstValue("ETag").orElseThrow();
      assertThat(etag).startsWith("W/\"");

      HttpApi.Response again = admin.getWith(path, "If-None-Match", etag);
      // The GPUs' sample may have moved in between; the jobs and sweeps of a quiet test have not.
      if (!path.equals("/api/v1/gpus")) {
        assertThat(again.status()).as(path).isEqualTo(304);
        assertThat(again.body()).isEmpty();
      }
    }
    String other = admin.getWith("/api/v1/jobs?limit=5", "If-None-Match", "W/\"stale\"").body();
    assertThat(other).startsWith("{\"items\"");
  }

  @Test
  @DisplayName(
      "a submit and a cancel through the API change the listing's ETag at once, a state change"
          + " by the scheduler within a second: a refreshing page never keeps stale jobs")
  void every_change_changes_the_listing_etag() {
    String path = "/api/v1/jobs?label=suite:etag-changes";
    String empty = admin.get(path).headers().firstValue("ETag").orElseThrow();
    // Unchanged, whether the answer was kept (asked within its second) or built again.
    assertThat(admin.getWith(path, "If-None-Match", empty).status()).isEqualTo(304);

    String quick = alice.submit(aJob().label("suite", "etag-changes").json());
    HttpApi.Response submitted = admin.getWith(path, "If-None-Match", empty);
    assertThat(submitted.status()).isEqualTo(200);
    assertThat(submitted.body()).contains(quick);

    // The scheduler's moves go through no request: the kept answer lasts at most a second.
    await().atMost(Duration.ofSeconds(30)).until(() -> alice.state(quick).equals("SUCCEEDED"));
    await()
        .atMost(Duration.ofSeconds(2))
        .until(() -> stateIn(admin.get(path), quick).equals("SUCCEEDED"));

    String slow = alice.submit(aJob().command("sleep", "30").label("suite", "etag-changes").json());
    HttpApi.Response before = admin.get(path);
    assertThat(before.body()).contains(slow);
    assertThat(alice.post("/api/v1/jobs/" + slow + "/cancel").status()).isEqualTo(200);
    HttpApi.Response cancelled =
        admin.getWith(path, "If-None-Match", before.headers().firstValue("ETag").orElseThrow());
    assertThat(cancelled.status()).isEqualTo(200);
    assertThat(stateIn(cancelled, slow)).isEqualTo("CANCELLED");
  }

  @Test
  @DisplayName("a listing kept for one caller is never another's answer, nor its ETag a 304")
  void a_kept_listing_is_never_another_callers() {
    String path = "/api/v1/jobs?label=suite:etag-callers";
    String alices =
        alice.submit(aJob().command("sleep", "30").label("suite", "etag-callers").json());
    HttpApi.Response hers = alice.get(path);
    assertThat(hers.body()).contains(alices);

    // Within the second her answer is kept, the same query with Bob's token and her ETag.
    HttpApi.Response his =
        bob.getWith(path, "If-None-Match", hers.headers().firstValue("ETag").orElseThrow());
    assertThat(his.status()).isEqualTo(200);
    assertThat(his.body()).doesNotContain(alices).startsWith("{\"items\":[]");
    assertThat(admin.get(path).body()).contains(alices);
    alice.post("/api/v1/jobs/" + alices + "/cancel");
  }

  private static String stateIn(HttpApi.Response listing, String id) {
    for (JsonNode job : listing.json().get("items")) {
      if (job.get("id").asString().equals(id)) {
        return job.get("state").asString();
      }
    }
    return "absent";
  }

  @Test
  @DisplayName("the page's own code and libraries stay under 300 KB")
  void the_page_stays_small() throws IOException, URISyntaxException {
    Path dir = Path.of(getClass().getResource("/gpuq-ui/index.html").toURI()).getParent();
    long total;
    try (Stream<Path> files = Files.walk(dir)) {
      total = files.filter(Files::isRegularFile).mapToLong(WebUiHttpTest::size).sum();
    }
    assertThat(total).isLessThan(300 * 1024);
  }

  private static long size(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private String rawGet(String path) throws IOException {
    return rawRequest("GET " + path);
  }

  /** {@code request} is a method and a path, sent as they are, without a token. */
  private String rawRequest(String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      out.write(
          (request
                  + " HTTP/1.1\r\n"
                  + "Host: localhost\r\n"
                  + "Content-Length: 0\r\n"
                  + "Connection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }
}
