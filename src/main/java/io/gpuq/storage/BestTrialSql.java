package io.gpuq.storage;

import io.gpuq.job.JobState;
import io.gpuq.sweep.BestScope;

/**
 * The one definition, in SQL, of a sweep's best trial: the sweep's view and the {@code
 * gpuq_sweep_best_value} gauge both read it from here, so that they never disagree.
 */
final class BestTrialSql {

  private BestTrialSql() {}

  /** The column that holds the value a scope ranks by. */
  static String valueColumn(BestScope scope) {
    return scope == BestScope.LAST ? "metric_value" : "metric_best";
  }

  /**
   * The one query of each sweep's best trial by its own goal in this scope: {@code select <columns>
   * from sweeps s join jobs j on j.id = <its best trial> where s.metric_name is not null and
   * <where>}. It takes {@link #PARAMETERS} parameters, each {@link #PARAMETER}, then those of
   * {@code where}.
   */
  static String bestTrials(BestScope scope, String columns, String where) {
    return "select "
        + columns
        + " from sweeps s join jobs j on j.id = "
        + bestTrialId(scope)
        + " where s.metric_name is not null and "
        + where;
  }

  /**
   * An expression for the id of sweep {@code s}'s best trial by its own goal in this scope (null
   * when none has a value), first by value, then by number: an index walk to its first row, not a
   * ranking of every reported trial. It takes {@link #PARAMETERS} parameters, each {@link
   * #PARAMETER}.
   */
  private static String bestTrialId(BestScope scope) {
    return "case when lower(s.metric_goal) = 'maximize' then ("
        + firstTrial(scope, "desc")
        + ") else ("
        + firstTrial(scope, "asc")
        + ") end";
  }

  /** How many parameters {@link #bestTrialId} takes. */
  static final int PARAMETERS = 2;

  /** The value of each: "<= +Infinity" leaves out NaN, which both databases sort above all. */
  static final Double PARAMETER = Double.POSITIVE_INFINITY;

  private static String firstTrial(BestScope scope, String direction) {
    String column = "b." + valueColumn(scope);
    return "select b.id from jobs b where b.sweep_id = s.id"
        + (scope == BestScope.LAST ? " and b.state = '" + JobState.SUCCEEDED.name() + "'" : "")
        + " and "
        + column
        + " <= ? order by "
        + column
        + " "
        + direction
        + ", b.trial limit 1";
  }
}
