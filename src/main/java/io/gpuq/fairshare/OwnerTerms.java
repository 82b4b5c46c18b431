package io.gpuq.fairshare;

import io.gpuq.startup.StartRefusedException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What an owner is given, set on each of their tokens and necessarily the same on each.
 *
 * @param share the owner's weight in fair share: an owner of share 2 is served as if they were two
 *     owners of share 1; positive
 * @param limits what the owner may hold and queue at once
 */
public record OwnerTerms(double share, Limits limits) {

  public static final OwnerTerms DEFAULT = new OwnerTerms(1);

  public OwnerTerms {
    if (!(share > 0) || Double.isInfinite(share)) {
      throw new IllegalArgumentException("share must be a positive number: " + share);
    }
    Objects.requireNonNull(limits, "limits");
  }

  /** A share with the default limits. */
  public OwnerTerms(double share) {
    this(share, Limits.DEFAULT);
  }

  /**
   * Each term by its configuration key, as the operator wrote it: the one list that the agreement
   * between an owner's tokens compares, so that a term added here is checked with the others.
   */
  public Map<String, String> byKey() {
    Map<String, String> terms = new LinkedHashMap<>();
    terms.put("share", number(share));
    terms.putAll(limits.byKey());
    return terms;
  }

  /**
   * One token's terms as configured.
   *
   * @param index its position in {@code gpuq.auth.tokens}
   * @param owner its {@code name}
   */
  public record OfToken(int index, String owner, OwnerTerms terms) {}

  /**
   * The terms of each owner, from their tokens; gpuq refuses to start when two tokens of one owner
   * give different terms, naming those tokens (by position and owner, never by their secret).
   */
  public static Map<String, OwnerTerms> agreed(List<OfToken> tokens) {
    Map<String, List<OfToken>> byOwner = new TreeMap<>();
    tokens.forEach(t -> byOwner.computeIfAbsent(t.owner(), o -> new ArrayList<>()).add(t));
    List<String> disagreements = new ArrayList<>();
    Map<String, OwnerTerms> agreed = new LinkedHashMap<>();
    byOwner.forEach(
        (owner, ofOwner) -> {
          OfToken first = ofOwner.get(0);
          agreed.put(owner, first.terms());
          for (String key : first.terms().byKey().keySet()) {
            List<String> values = new ArrayList<>();
            boolean differ = false;
            for (OfToken token : ofOwner) {
              String value = token.terms().byKey().get(key);
              differ |= !value.equals(first.terms().byKey().get(key));
              values.add("gpuq.auth.tokens[" + token.index() + "]." + key + "=" + value);
            }
            if (differ) {
              disagreements.add("owner '" + owner + "': " + String.join(", ", values));
            }
          }
        });
    if (!disagreements.isEmpty()) {
      throw new StartRefusedException(
          "the tokens of one owner give different terms (" + String.join("; ", disagreements) + ")",
          "give every token of an owner (the same gpuq.auth.tokens[N].name) the same values");
    }
    return agreed;
  }

  static String number(double value) {
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : Double.toString(value);
  }
}
