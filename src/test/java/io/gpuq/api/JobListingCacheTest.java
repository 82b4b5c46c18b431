package io.gpuq.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.web.filter.ShallowEtagHeaderFilter;

@DisplayName("The job listing's kept answers: their ETags")
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
}
