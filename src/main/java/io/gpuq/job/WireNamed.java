package io.gpuq.job;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** An enum that requests and answers name by its constant, in lower case. */
public interface WireNamed {

  /** The constant's name, as every enum has it. */
  String name();

  default String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The constant of {@code type} that {@code text} names on the wire, if any. */
  static <E extends Enum<E> & WireNamed> Optional<E> fromWire(Class<E> type, String text) {
    return Arrays.stream(type.getEnumConstants())
        .filter(constant -> constant.wireName().equals(text))
        .findFirst();
  }
}
