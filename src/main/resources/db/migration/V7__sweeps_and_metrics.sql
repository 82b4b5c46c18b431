-- Sweeps (issue 14): many trials of one command, each trial a job. The sweep's own row holds what
-- the service needs again after creation: its template and parameter space (to check and build an
-- external sweep's added trials), its metric and early-stopping rule (to rank and prune trials),
-- and its concurrency limit (read by the claim that starts its trials).
create table sweeps (
    id               varchar(26)  primary key,
    owner            varchar(100) not null,
    name             varchar(200) not null,
    method           varchar(16)  not null,
    -- The validated request (template and parameters) as JSON, to rebuild its SweepDefinition.
    definition       varchar      not null,
    metric_name      varchar(200),
    metric_goal      varchar(16),
    -- The rule as the request gave it, e.g. {"type":"median","startupTrials":5,"warmupSteps":10}.
    early_stopping   varchar,
    -- Null: no limit.
    max_concurrent   integer,
    seed             bigint,
    -- Trials created so far; an external sweep's next trial gets this number.
    trial_count      integer      not null,
    -- No more trials will be added: true from creation unless the method is external.
    closed           boolean      not null,
    cancelled_at     timestamp with time zone,
    idempotency_key  varchar(200),
    created_at       timestamp with time zone not null,
    -- When it became DONE or CANCELLED; its trials age from then on, as one.
    finished_at      timestamp with time zone,
    version          bigint       not null
);
create index sweeps_owner_newest on sweeps (owner, id desc);
create unique index sweeps_idempotency on sweeps (owner, idempotency_key);
create index sweeps_finished on sweeps (finished_at);

-- A trial is a job that belongs to a sweep: its number in the sweep and its parameters (JSON
-- object, in the sweep's declared order).
alter table jobs add column sweep_id varchar(26) references sweeps (id);
alter table jobs add column trial integer;
alter table jobs add column parameters varchar;
-- A sweep's trials by number, and its counts per state.
create unique index jobs_sweep_trial on jobs (sweep_id, trial);
create index jobs_sweep_state on jobs (sweep_id, state);

-- Metrics a run reports through GPUQ_METRICS_FILE, in the order gpuq read them.
create table job_metrics (
    job_id         varchar(26) not null references jobs (id) on delete cascade,
    seq            integer     not null,
    step           bigint      not null,
    -- JSON object of the line's numbers (NaN and infinities as null).
    metric_values  varchar     not null,
    read_at        timestamp with time zone not null,
    primary key (job_id, seq)
);

-- Where reading a job's metrics file stopped (MetricsPosition), so that a restarted gpuq reads on
-- from there, including what was written while it was down.
alter table jobs add column metrics_offset bigint not null default 0;
alter table jobs add column metrics_last_step bigint not null default -1;
alter table jobs add column metrics_skipping boolean not null default false;
alter table jobs add column metrics_skipped_lines bigint not null default 0;
-- Read to its end after the job ended: nothing more will come.
alter table jobs add column metrics_done boolean not null default false;
-- What the job's view shows: the latest values (JSON object) and their step.
alter table jobs add column metrics_latest varchar;
alter table jobs add column metrics_step bigint;
-- For a trial, its sweep's metric: the last value reported and the best by the sweep's goal.
alter table jobs add column metric_value double precision;
alter table jobs add column metric_best double precision;
-- The trials table sorted by metric.
create index jobs_sweep_metric on jobs (sweep_id, metric_best);
