-- A sweep's best trial is now its completed trial with the best final value (Optuna's best_trial):
-- found by an index walk as the any-step best is through jobs_sweep_metric.
create index jobs_sweep_final_value on jobs (sweep_id, state, metric_value);
