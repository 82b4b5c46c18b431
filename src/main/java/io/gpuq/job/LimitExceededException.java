package io.gpuq.job;

import java.util.List;

/**
 * A request past one of gpuq's limits, refused whole (nothing of it is stored), with the figures
 * that say which limit and by how much: the limit's value and what the request would reach. The API
 * answers every such refusal alike, its status and title by class and these figures as the
 * problem's properties, in their order; so a new limit (a per-owner count, a size) is one subclass
 * and one title, and its answer cannot drift from the others'.
 */
public abstract class LimitExceededException extends RuntimeException {

  /** One figure of a refusal: its name in the answer and its value (a number or a name). */
  public record Figure(String name, Object value) {}

  private final transient List<Figure> figures;

  protected LimitExceededException(String message, Figure... figures) {
    super(message);
    this.figures = List.of(figures);
  }

  /** The figures, in the order the answer gives them. */
  public List<Figure> figures() {
    return figures;
  }

  /** The value of the figure named {@code name}, for a subclass's typed accessor. */
  protected final <T> T figure(String name, Class<T> type) {
    for (Figure figure : figures) {
      if (figure.name().equals(name)) {
        return type.cast(figure.value());
      }
    }
    throw new IllegalArgumentException("no figure named " + name);
  }
}
