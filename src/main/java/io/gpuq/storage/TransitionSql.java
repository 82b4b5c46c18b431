package io.gpuq.storage;

import io.gpuq.job.JobPlacement;
import io.gpuq.job.JobState;
import io.gpuq.job.JobTransition;
import io.gpuq.job.JobTransition.Change;
import io.gpuq.job.JobTransition.Value;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A transition's description ({@link JobTransition}) as SQL: the {@code set} list of the job's row
 * and of its attempt's row, and the values bound to them, converted as the entity's converters and
 * Hibernate convert them. Nothing here names a field a transition writes.
 */
public final class TransitionSql {

  private final JobTransition transition;

  TransitionSql(JobTransition transition) {
    this.transition = transition;
  }

  /**
   * {@code update jobs set state = ?, ... where id = ? [and attempt = ?] and state in (...)}: the
   * parameters are the state, the transition's values ({@link #jobValues}), then the id, then (when
   * {@code byAttempt}) the attempt, then the source states.
   */
  String updateJob(boolean byAttempt) {
    return "update jobs set "
        + jobSets()
        + " where id = ?"
        + (byAttempt ? " and attempt = ?" : "")
        + " and state in ("
        + sourcePlaceholders()
        + ")";
  }

  /**
   * {@code update jobs set state = ?, ... where (<where>) and state in (...)}: every job a
   * condition matches, moved in one statement. The parameters are the state, the transition's
   * values ({@link #jobsWhereValues}), the condition's, then the source states. Only for a
   * transition whose job writes do not depend on each job's own values (its attempt number).
   */
  String updateJobsWhere(String where) {
    if (transition.jobWrites().containsValue(Value.NEXT_ATTEMPT)) {
      throw new IllegalStateException(transition + " writes each job's own attempt number");
    }
    return "update jobs set "
        + jobSets()
        + " where ("
        + where
        + ") and state in ("
        + sourcePlaceholders()
        + ")";
  }

  /** The set clause of both updates: the state, the transition's job writes, the version. */
  private String jobSets() {
    List<String> sets = new ArrayList<>();
    sets.add("state = ?");
    transition
        .jobWrites()
        .forEach(
            (field, value) ->
                sets.add(
                    field.column()
                        + (value == Value.INCREMENTED
                            ? " = " + field.column() + " + 1"
                            : assigned(value))));
    // As an entity update would: a transaction holding the job (a cancel) then fails instead of
    // overwriting this.
    sets.add("version = version + 1");
    return String.join(", ", sets);
  }

  /** One {@code ?} per source state, for {@code state in (...)}. */
  private String sourcePlaceholders() {
    return String.join(", ", Collections.nCopies(transition.sources().size(), "?"));
  }

  /** {@link #updateJobsWhere}'s parameters, in order: the condition's are {@code arguments}. */
  List<Object> jobsWhereValues(Change change, List<Object> arguments) {
    List<Object> values = new ArrayList<>();
    values.add(transition.target().name());
    add(values, transition.jobWrites(), change, 0);
    values.addAll(arguments);
    addSources(values);
    return values;
  }

  /** {@code insert into job_attempts (job_id, attempt, <what opening writes>) values (...)}. */
  String insertAttempt() {
    List<String> columns = new ArrayList<>(List.of("job_id", "attempt"));
    transition.attemptWrites().keySet().forEach(field -> columns.add(field.column()));
    return "insert into job_attempts ("
        + String.join(", ", columns)
        + ") values ("
        + String.join(", ", Collections.nCopies(columns.size(), "?"))
        + ")";
  }

  /** {@code update job_attempts set <what ending writes> where job_id = ? and attempt = ?}. */
  String updateAttempt() {
    List<String> sets = new ArrayList<>();
    transition
        .attemptWrites()
        .forEach((field, value) -> sets.add(field.column() + assigned(value)));
    return "update job_attempts set "
        + String.join(", ", sets)
        + " where job_id = ? and attempt = ?";
  }

  /** {@link #updateJob}'s parameters, in order, as their columns hold them. */
  List<Object> jobValues(Change change, String id, Integer attempt) {
    List<Object> values = new ArrayList<>();
    values.add(transition.target().name());
    add(values, transition.jobWrites(), change, attempt == null ? 0 : attempt);
    values.add(id);
    if (attempt != null) {
      values.add(attempt);
    }
    addSources(values);
    return values;
  }

  /** The source states, for {@code state in (...)}. */
  private void addSources(List<Object> values) {
    for (JobState source : List.copyOf(transition.sources())) {
      values.add(source.name());
    }
  }

  /** {@link #insertAttempt}'s parameters, in order. */
  List<Object> attemptInsertValues(String jobId, int attempt, Change change) {
    List<Object> values = new ArrayList<>();
    values.add(jobId);
    values.add(attempt);
    add(values, transition.attemptWrites(), change, attempt);
    return values;
  }

  /** {@link #updateAttempt}'s parameters, in order. */
  List<Object> attemptUpdateValues(String jobId, int attempt, Change change) {
    List<Object> values = new ArrayList<>();
    add(values, transition.attemptWrites(), change, attempt);
    values.add(jobId);
    values.add(attempt);
    return values;
  }

  private static String assigned(Value value) {
    return value == Value.NONE ? " = null" : " = ?";
  }

  /** Adds the values of {@code writes} that take a parameter, in their order. */
  private void add(
      List<Object> values, Map<? extends Enum<?>, Value> writes, Change change, int attempt) {
    for (Value value : writes.values()) {
      if (value != Value.NONE && value != Value.INCREMENTED) {
        values.add(jdbc(change.valueOf(value, transition, attempt)));
      }
    }
  }

  /** A value as its column holds it. */
  private static Object jdbc(Object value) {
    if (value instanceof Instant instant) {
      // The same instant Hibernate would write, whatever the server's time zone.
      return instant.atOffset(ZoneOffset.UTC);
    }
    if (value instanceof JobPlacement placement) {
      return JsonColumns.write(placement);
    }
    if (value instanceof Enum<?> constant) {
      return constant.name();
    }
    return value;
  }
}
