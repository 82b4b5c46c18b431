-- The usage report (issue 37): the daily roll-up keeps its jobs' waits in buckets (so that p50 and
-- p95 cover rolled-up days too; see WaitHistogram: "bucket:count" pairs), and a second table keeps
-- the same figures per day, owner and label, so that a report by label counts deleted jobs in
-- their label's group. A job with three labels adds to its day's row and to three label rows.
alter table usage_daily add column wait_histogram varchar(2000);

create table usage_daily_labels (
    usage_day                      date         not null,
    owner                          varchar(100) not null,
    label_key                      varchar(63)  not null,
    label_value                    varchar(256) not null,
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
    wait_histogram                 varchar(2000),
    primary key (usage_day, owner, label_key, label_value)
);
-- A report by label reads one key's rows over its window's days.
create index usage_daily_labels_by_key on usage_daily_labels (label_key, usage_day);
-- How far the roll-up has gone: every attempt and job that ended before rolled_up_to is in the
-- roll-up tables (the usage roll-up duty moves it on, a chunk a transaction, holding this row's
-- lock; retention adds to the roll-up only what ended at or after it). A report reads whole days
-- from the roll-up and only the rows after it (and before its first midnight) from the job tables.
create table usage_mark (
    id            integer primary key,
    rolled_up_to  timestamp with time zone
);
insert into usage_mark (id, rolled_up_to) values (1, null);
