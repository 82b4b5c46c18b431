package io.gpuq.notify;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The signature of a delivery: {@code sha256=} and the lowercase hex HMAC-SHA256, keyed with the
 * operator's {@code gpuq.notifications.secret} (its UTF-8 bytes), of the {@code X-Gpuq-Timestamp}
 * header's value (seconds since the epoch, in decimal), a dot, and the body's exact bytes. The
 * timestamp is signed with the body so that a receiver that refuses old timestamps refuses replays:
 * a replayed request cannot carry a fresh timestamp without a new signature.
 */
public final class Signature {

  public static final String HEADER = "X-Gpuq-Signature";
  public static final String TIMESTAMP_HEADER = "X-Gpuq-Timestamp";

  private Signature() {}

  /** The {@value #HEADER} header's value. */
  public static String of(String secret, long timestampSeconds, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((timestampSeconds + ".").getBytes(StandardCharsets.UTF_8));
      byte[] digest = mac.doFinal(body.getBytes(StandardCharsets.UTF_8));
      return "sha256=" + HexFormat.of().formatHex(digest);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
