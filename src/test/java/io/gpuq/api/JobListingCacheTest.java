package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuq.job.Caller;
import jakarta.servlet.FilterChain;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.filter.ShallowEtagHeaderFilter;

@DisplayName(
    "The job listing's kept answers: their ETags, and one build for those asking during it")
class JobListingCacheTest {

  private static final byte[] LISTING =
      "{\"items\":[],\"nextCursor\":null}".getBytes(StandardCharsets.UTF_8);

  /** Exposes how the ETag filter in front of the API words a weak ETag. */
  private static final class EtagFilter extends ShallowEtagHeaderFilter {
    String weakEtagOf(byte[] body) throws IOException {
      return generateETagHeaderValue(new ByteArrayInputStream(body), true);
    }
  }

  @Test
  @DisplayName("a kept answer's ETag is the one the ETag filter gives the same bytes")
  void a_kept_answers_etag_is_the_etag_filters() throws IOException {
    assertThat(JobListingCache.weakEtagOf(LISTING)).isEqualTo(new EtagFilter().weakEtagOf(LISTING));
  }

  @Test
  @DisplayName("If-None-Match matches by the weak comparison: any listed tag, weak or strong, or *")
  void if_none_match_uses_the_weak_comparison() {
    String etag = JobListingCache.weakEtagOf(LISTING);
    String strong = etag.substring(2);
    assertThat(JobListingCache.matches(etag, etag)).isTrue();
    assertThat(JobListingCache.matches(strong, etag)).isTrue();
    assertThat(JobListingCache.matches("W/\"other\", " + etag, etag)).isTrue();
    assertThat(JobListingCache.matches("*", etag)).isTrue();
    assertThat(JobListingCache.matches("W/\"other\"", etag)).isFalse();
    assertThat(JobListingCache.matches(null, etag)).isFalse();
  }

  private static final Caller ALICE = new Caller("alice", Caller.Role.SUBMITTER);
  private static final Caller BOB = new Caller("bob", Caller.Role.SUBMITTER);

  /** A listing that counts its builds and, until released, blocks inside them. */
  private static final class Listing implements FilterChain {
    final AtomicInteger builds = new AtomicInteger();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void doFilter(
        jakarta.servlet.ServletRequest request, jakarta.servlet.ServletResponse response)
        throws IOException {
      builds.incrementAndGet();
      entered.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      response.setContentType("application/json");
      response.getOutputStream().write(LISTING);
    }
  }

  private static MockHttpServletRequest listing(Caller caller, String ifNoneMatch) {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/v1/jobs");
    request.setQueryString("limit=100");
    request.setAttribute(CallerAttribute.NAME, caller);
    if (ifNoneMatch != null) {
      request.addHeader("If-None-Match", ifNoneMatch);
    }
    return request;
  }

  private static CompletableFuture<MockHttpServletResponse> ask(
      JobListingCache cache, MockHttpServletRequest request, FilterChain chain) {
    return CompletableFuture.supplyAsync(
        () -> {
          MockHttpServletResponse response = new MockHttpServletResponse();
          try {
            cache.doFilter(request, response, chain);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          return response;
        });
  }

  /**
   * How many threads wait, right now, for a listing another request is building: a request has
   * arrived, however long a busy machine took to run it, once its thread waits there.
   */
  private static long requestsWaitingForABuild() {
    return Thread.getAllStackTraces().values().stream()
        .filter(
            stack ->
                Arrays.stream(stack)
                    .anyMatch(
                        frame ->
                            frame.getClassName().equals(JobListingCache.class.getName() + "$Build")
                                && frame.getMethodName().equals("await")))
        .count();
  }

  private static JobListingCache cache() {
    return new JobListingCache(Clock.systemUTC(), Duration.ofSeconds(1), 512 * 1024);
  }

  @Test
  @DisplayName(
      "requests of the same caller and query that arrive while it is built wait for that one"
          + " build, and are answered from it: 304 to the ETag it has, 200 to any other")
  void requests_during_a_build_wait_for_it() throws Exception {
    JobListingCache cache = cache();
    Listing chain = new Listing();
    String etag = JobListingCache.weakEtagOf(LISTING);
    CompletableFuture<MockHttpServletResponse> first = ask(cache, listing(ALICE, null), chain);
    assertThat(chain.entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<MockHttpServletResponse> same = ask(cache, listing(ALICE, etag), chain);
    CompletableFuture<MockHttpServletResponse> other =
        ask(cache, listing(ALICE, "W/\"0other\""), chain);
    await().atMost(Duration.ofSeconds(30)).until(() -> requestsWaitingForABuild() == 2);
    chain.release.countDown();

    assertThat(first.get(10, TimeUnit.SECONDS).getContentAsByteArray()).isEqualTo(LISTING);
    assertThat(same.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(304);
    assertThat(same.get().getHeader("ETag")).isEqualTo(etag);
    assertThat(other.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
    assertThat(other.get().getContentAsByteArray()).isEqualTo(LISTING);
    assertThat(chain.builds).hasValue(1);
  }

  @Test
  @DisplayName("another caller's request during a build does not wait for it: it builds its own")
  void another_callers_request_builds_its_own() throws Exception {
    JobListingCache cache = cache();
    Listing alices = new Listing();
    CompletableFuture<MockHttpServletResponse> hers = ask(cache, listing(ALICE, null), alices);
    assertThat(alices.entered.await(10, TimeUnit.SECONDS)).isTrue();

    Listing bobs = new Listing();
    bobs.release.countDown();
    MockHttpServletResponse his =
        ask(cache, listing(BOB, JobListingCache.weakEtagOf(LISTING)), bobs)
            .get(10, TimeUnit.SECONDS);
    assertThat(bobs.builds).hasValue(1);
    assertThat(his.getStatus()).isEqualTo(304);
    alices.release.countDown();
    assertThat(hers.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
  }

  @Test
  @DisplayName("a write while a listing is built: the requests that waited for it build it again")
  void a_write_during_a_build_makes_waiters_build_again() throws Exception {
    JobListingCache cache = cache();
    Listing chain = new Listing();
    CompletableFuture<MockHttpServletResponse> first = ask(cache, listing(ALICE, null), chain);
    assertThat(chain.entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<MockHttpServletResponse> waiting = ask(cache, listing(ALICE, null), chain);
    await().atMost(Duration.ofSeconds(30)).until(() -> requestsWaitingForABuild() == 1);
    MockHttpServletRequest submit = new MockHttpServletRequest("POST", "/api/v1/jobs");
    cache.doFilter(submit, new MockHttpServletResponse(), (request, response) -> {});
    chain.release.countDown();

    first.get(10, TimeUnit.SECONDS);
    assertThat(waiting.get(10, TimeUnit.SECONDS).getStatus()).isEqualTo(200);
    assertThat(chain.builds).hasValue(2);
  }
}
