package io.gpuq.api;

import io.gpuq.job.Caller;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.http.HttpHeaders;
import org.springframework.util.DigestUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Answers a repeated {@code GET /api/v1/jobs} from the answer built for the same caller and query
 * less than {@code maxAge} ago, so that the web page's refresh every second does not read, word and
 * serialise 100 jobs each time only for the ETag filter (outside this one) to find them unchanged
 * and answer 304. Many open pages of one caller then cost one listing per {@code maxAge}, and each
 * unchanged refresh a look-up and a 304 (docs/ui.md, "What a refresh costs").
 *
 * <p>Why a short-lived cache and not a store-wide change counter: the listing shows what no job row
 * holds ({@code queuedReason} comes from this node's last scheduling pass, "behind N queued jobs"
 * is counted when read), and several nodes write one PostgreSQL, so a counter would have to follow
 * every writer of every node and every pass. An answer at most {@code maxAge} old needs none of
 * that, and is as fresh as a page that refreshes every second sees anyway.
 *
 * <p>What keeps it correct:
 *
 * <ul>
 *   <li>The key is the authenticated {@link Caller} (its name and role, set by the token filter
 *       before this one) and the whole query string: no caller is answered what was built for
 *       another, whatever the two may see.
 *   <li>Any request through this node that may change a job (a method other than GET, HEAD or
 *       OPTIONS under {@code /api/v1/jobs} or {@code /api/v1/sweeps}: submit, cancel, a sweep's
 *       creation or cancel) drops every answer, before and after it runs: what this node's API
 *       changed is seen by the next listing at once. Other changes (the scheduler's starts and
 *       ends, other nodes' writes) are seen within {@code maxAge}.
 *   <li>Only 200s are kept, and only up to {@code maxBodyBytes}; an error is never replayed.
 *   <li>Requests for a listing that another request of the same caller and query is building wait
 *       for it (up to 5 s) rather than build it again, and use it only if no write came between.
 * </ul>
 */
public final class JobListingCache extends OncePerRequestFilter {

  private static final String LISTING = "/api/v1/jobs";

  /** Past this many answers, the expired ones are dropped (and all, if none had expired). */
  private static final int MAX_ANSWERS = 128;

  /** How long a request waits for the same listing another request is building, at most. */
  private static final Duration BUILD_WAIT = Duration.ofSeconds(5);

  private record Key(Caller caller, String query) {}

  private record Answer(
      byte[] body, String contentType, String etag, Instant builtAt, long generation) {}

  private final Clock clock;
  private final Duration maxAge;
  private final int maxBodyBytes;
  private final ConcurrentHashMap<Key, Answer> answers = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Key, Build> building = new ConcurrentHashMap<>();

  /**
   * Bumped by every write through this node's API: an answer built under an older generation is
   * never used, even one whose listing began before the write and was stored after it.
   */
  private final AtomicLong generation = new AtomicLong();

  public JobListingCache(Clock clock, Duration maxAge, int maxBodyBytes) {
    this.clock = clock;
    this.maxAge = maxAge;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String method = request.getMethod();
    if (!"GET".equals(method)) {
      boolean writes = !"HEAD".equals(method) && !"OPTIONS".equals(method);
      if (writes) {
        forgetAll();
      }
      try {
        chain.doFilter(request, response);
      } finally {
        if (writes) {
          // Again once it has committed: a listing read between the first bump and the commit
          // saw the job as it was.
          forgetAll();
        }
      }
      return;
    }
    if (maxAge.isZero()
        || !LISTING.equals(request.getRequestURI())
        || !(request.getAttribute(CallerAttribute.NAME) instanceof Caller caller)) {
      chain.doFilter(request, response);
      return;
    }
    Key key = new Key(caller, Objects.requireNonNullElse(request.getQueryString(), ""));
    String ifNoneMatch = request.getHeader(HttpHeaders.IF_NONE_MATCH);
    Answer kept = answers.get(key);
    if (kept != null && isFresh(kept, clock.instant(), generation.get())) {
      answerFrom(kept, ifNoneMatch, response);
      return;
    }
    // Pages of one caller refresh out of step, and a listing takes a while to build: those that
    // ask while it is being built wait for it instead of building it again each.
    Build mine = new Build();
    Build theirs = building.putIfAbsent(key, mine);
    if (theirs != null) {
      Answer shared = theirs.await(BUILD_WAIT);
      if (shared != null && shared.generation() == generation.get()) {
        answerFrom(shared, ifNoneMatch, response);
        return;
      }
      buildAndAnswer(key, ifNoneMatch, request, response, chain, null);
      return;
    }
    buildAndAnswer(key, ifNoneMatch, request, response, chain, mine);
  }

  /**
   * Builds the listing and keeps it if it may be kept; answers 304 at once when its ETag is the
   * page's, so that its bytes are hashed once, here, and not again by the ETag filter outside.
   */
  private void buildAndAnswer(
      Key key,
      String ifNoneMatch,
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain,
      Build build)
      throws ServletException, IOException {
    Instant now = clock.instant();
    long current = generation.get();
    Answer answer = null;
    try {
      ContentCachingResponseWrapper built = new ContentCachingResponseWrapper(response);
      chain.doFilter(request, built);
      if (built.getStatus() == HttpServletResponse.SC_OK
          && built.getContentSize() <= maxBodyBytes
          && built.getContentType() != null) {
        byte[] body = built.getContentAsByteArray();
        answer = new Answer(body, built.getContentType(), weakEtagOf(body), now, current);
        keep(key, answer);
        if (matches(ifNoneMatch, answer.etag())) {
          response.setHeader(HttpHeaders.ETAG, answer.etag());
          response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
          return;
        }
      }
      built.copyBodyToResponse();
    } finally {
      if (build != null) {
        building.remove(key, build);
        build.done(answer);
      }
    }
  }

  /** A kept answer: 304 for a map look-up when it is the page's, else its bytes. */
  private static void answerFrom(Answer kept, String ifNoneMatch, HttpServletResponse response)
      throws IOException {
    if (matches(ifNoneMatch, kept.etag())) {
      // The page's usual refresh. The ETag filter outside leaves a 304 as it is.
      response.setHeader(HttpHeaders.ETAG, kept.etag());
      response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
      return;
    }
    // The ETag filter outside hashes these bytes again and sends them with the same ETag.
    response.setStatus(HttpServletResponse.SC_OK);
    response.setContentType(kept.contentType());
    response.getOutputStream().write(kept.body());
  }

  /** A listing being built: the requests for the same key that arrive meanwhile wait for it. */
  private static final class Build {
    private final CountDownLatch done = new CountDownLatch(1);
    private volatile Answer answer;

    void done(Answer built) {
      answer = built;
      done.countDown();
    }

    /** The answer built, or null if it may not be kept, failed, or took longer than {@code max}. */
    Answer await(Duration max) {
      try {
        return done.await(max.toMillis(), TimeUnit.MILLISECONDS) ? answer : null;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  private boolean isFresh(Answer answer, Instant now, long current) {
    // Not from the future either: a clock set back must not keep an answer for longer.
    return answer.generation() == current
        && !now.isBefore(answer.builtAt())
        && now.isBefore(answer.builtAt().plus(maxAge));
  }

  private void keep(Key key, Answer answer) {
    if (answers.size() >= MAX_ANSWERS) {
      Instant now = clock.instant();
      long current = generation.get();
      answers.values().removeIf(old -> !isFresh(old, now, current));
      if (answers.size() >= MAX_ANSWERS) {
        answers.clear();
      }
    }
    answers.put(key, answer);
  }

  /**
   * The weak ETag that Spring's {@code ShallowEtagHeaderFilter} (outside this filter) gives these
   * bytes: {@code W/"0} and their MD5 in hex. The same, so that a page holding either is answered
   * 304 by both; were they ever to differ, a kept answer would only be sent again as a 200.
   */
  static String weakEtagOf(byte[] body) {
    return "W/\"0" + DigestUtils.md5DigestAsHex(body) + "\"";
  }

  /** {@code If-None-Match} by the weak comparison (RFC 9110, 13.1.2): one of its tags, or *. */
  static boolean matches(String ifNoneMatch, String etag) {
    if (ifNoneMatch == null) {
      return false;
    }
    String opaque = etag.substring(2);
    for (String tag : ifNoneMatch.split(",")) {
      String trimmed = tag.trim();
      if (trimmed.equals("*")
          || (trimmed.startsWith("W/") ? trimmed.substring(2) : trimmed).equals(opaque)) {
        return true;
      }
    }
    return false;
  }

  private void forgetAll() {
    generation.incrementAndGet();
    answers.clear();
  }
}
