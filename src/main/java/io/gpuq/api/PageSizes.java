package io.gpuq.api;

import io.gpuq.job.FieldError;
import java.util.List;

/** The {@code limit} of every listing: 1 to 1000, 100 when the request gives none. */
final class PageSizes {

  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  /** The {@code limit} parameter's description, for each listing's {@code @Parameter}. */
  static final String LIMIT_DOC = "1 to " + MAX_LIMIT + ", default " + DEFAULT_LIMIT;

  private PageSizes() {}

  /** The page size a request asks for; an out-of-range one is added to {@code errors}. */
  static int of(Integer limit, List<FieldError> errors) {
    int pageSize = limit == null ? DEFAULT_LIMIT : limit;
    if (pageSize < 1 || pageSize > MAX_LIMIT) {
      errors.add(new FieldError("limit", "must be between 1 and " + MAX_LIMIT));
    }
    return pageSize;
  }
}
