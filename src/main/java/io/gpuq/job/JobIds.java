package io.gpuq.job;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;

/**
 * Job ids are ULIDs: 26 Crockford base-32 characters, 48 bits of milliseconds then 80 random bits.
 * They sort by creation time, so "newest first" and cursors need nothing but the id; within one
 * millisecond this generator increments instead of drawing anew, so ids of one node stay ordered.
 */
public final class JobIds {

  private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();

  private final Clock clock;
  private final SecureRandom random = new SecureRandom();
  private long lastMillis = -1;
  private long randomHigh; // 16 bits
  private long randomLow; // 64 bits

  public JobIds(Clock clock) {
    this.clock = clock;
  }

  public synchronized String next() {
    long millis = Math.max(clock.millis(), lastMillis);
    if (millis == lastMillis) {
      randomLow++;
      if (randomLow == 0) {
        randomHigh = (randomHigh + 1) & 0xFFFF;
      }
    } else {
      lastMillis = millis;
      randomHigh = random.nextInt(1 << 16);
      randomLow = random.nextLong();
    }
    return encode(millis, randomHigh, randomLow);
  }

  /**
   * When the job with this id was created (to the millisecond), or empty when {@code id} is not a
   * job id.
   */
  public static Optional<Instant> creationTime(String id) {
    if (id.length() != 26) {
      return Optional.empty();
    }
    long millis = 0;
    for (int i = 0; i < 10; i++) {
      int digit = Arrays.binarySearch(ALPHABET, id.charAt(i));
      if (digit < 0) {
        return Optional.empty();
      }
      millis = (millis << 5) | digit;
    }
    for (int i = 10; i < 26; i++) {
      if (Arrays.binarySearch(ALPHABET, id.charAt(i)) < 0) {
        return Optional.empty();
      }
    }
    return Optional.of(Instant.ofEpochMilli(millis));
  }

  private static String encode(long millis, long high16, long low64) {
    char[] out = new char[26];
    for (int i = 9; i >= 0; i--) {
      out[i] = ALPHABET[(int) (millis & 31)];
      millis >>>= 5;
    }
    // 80 random bits = 16 characters; walk them 5 bits at a time from the least significant end.
    for (int i = 25; i >= 10; i--) {
      out[i] = ALPHABET[(int) (low64 & 31)];
      low64 = (low64 >>> 5) | ((high16 & 31) << 59);
      high16 >>>= 5;
    }
    return new String(out);
  }
}
