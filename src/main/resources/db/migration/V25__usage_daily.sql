-- The usage report (issue 37): what retention deletes is first added here, per day and owner, in
-- the transaction that deletes it, so that a report over last month still counts jobs retention
-- has deleted since. A day is the UTC day an attempt ended (its hours) or a job finished (its
-- count, and its wait, of which only the longest is kept: percentiles do not add up).
create table usage_daily (
    usage_day                      date         not null,
    owner                          varchar(100) not null,
    succeeded                      bigint       not null,
    failed                         bigint       not null,
    cancelled                      bigint       not null,
    pruned                         bigint       not null,
    gpu_hours                      double precision not null,
    gpu_memory_gib_hours           double precision not null,
    measured_gpu_memory_gib_hours  double precision not null,
    core_hours                     double precision not null,
    memory_gib_hours               double precision not null,
    wait_max_seconds               double precision,
    primary key (usage_day, owner)
);
-- The report reads the attempts that ended in its window.
create index job_attempts_finished on job_attempts (finished_at);
