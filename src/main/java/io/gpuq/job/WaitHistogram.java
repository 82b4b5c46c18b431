package io.gpuq.job;

import java.util.Arrays;
import java.util.StringJoiner;

/**
 * Waits counted in buckets a quarter of a doubling wide (issue 37): what the daily roll-up keeps of
 * its jobs' waits, since percentiles do not add up. Bucket 0 holds waits under a second; bucket
 * {@code b >= 1} those from {@code 2^((b-1)/4)} up to {@code 2^(b/4)} seconds; the last one
 * everything longer (about 2^25 s, a year). A percentile read from it is its bucket's upper bound:
 * never below the true value, and at most 19 % (2^(1/4)) above it, or 1 s for waits under a second.
 */
public final class WaitHistogram {

  /** Buckets 0 to {@code LAST}. */
  public static final int LAST = 100;

  private final long[] counts = new long[LAST + 1];

  /** The bucket of a wait of {@code seconds}; the database computes the same. */
  public static int bucket(double seconds) {
    if (seconds < 1) {
      return 0;
    }
    return (int) Math.min(LAST, 1 + Math.floor(4 * Math.log(seconds) / Math.log(2)));
  }

  /** The longest wait bucket {@code b} holds, in seconds. */
  public static double upperBound(int b) {
    return Math.pow(2, b / 4.0);
  }

  public void add(int bucket, long count) {
    counts[Math.max(0, Math.min(LAST, bucket))] += count;
  }

  public void addSeconds(double seconds) {
    add(bucket(seconds), 1);
  }

  public void addAll(WaitHistogram other) {
    for (int b = 0; b <= LAST; b++) {
      counts[b] += other.counts[b];
    }
  }

  /** Takes {@code other}'s counts away (a group of no label: all of a day less its labels). */
  public void subtract(WaitHistogram other) {
    for (int b = 0; b <= LAST; b++) {
      counts[b] = Math.max(0, counts[b] - other.counts[b]);
    }
  }

  public long total() {
    return Arrays.stream(counts).sum();
  }

  /** The highest bucket holding a wait, -1 when empty. */
  public int highest() {
    for (int b = LAST; b >= 0; b--) {
      if (counts[b] > 0) {
        return b;
      }
    }
    return -1;
  }

  /**
   * The nearest-rank percentile, as its bucket's upper bound, capped at {@code max} when known;
   * null when empty.
   */
  public Double percentile(double p, Double max) {
    long total = total();
    if (total == 0) {
      return null;
    }
    long rank = Math.max(1, (long) Math.ceil(p * total));
    long seen = 0;
    for (int b = 0; b <= LAST; b++) {
      seen += counts[b];
      if (seen >= rank) {
        double bound = upperBound(b);
        return max == null ? bound : Math.min(bound, max);
      }
    }
    throw new IllegalStateException("rank " + rank + " beyond " + total);
  }

  /** The stored form: {@code bucket:count} pairs, comma-separated, empty buckets left out. */
  public String text() {
    StringJoiner text = new StringJoiner(",");
    for (int b = 0; b <= LAST; b++) {
      if (counts[b] > 0) {
        text.add(b + ":" + counts[b]);
      }
    }
    return text.toString();
  }

  /** Reads {@link #text()}; null or empty: an empty histogram. */
  public static WaitHistogram parse(String text) {
    WaitHistogram histogram = new WaitHistogram();
    if (text == null || text.isBlank()) {
      return histogram;
    }
    for (String pair : text.split(",")) {
      int colon = pair.indexOf(':');
      histogram.add(
          Integer.parseInt(pair.substring(0, colon).trim()),
          Long.parseLong(pair.substring(colon + 1).trim()));
    }
    return histogram;
  }
}
