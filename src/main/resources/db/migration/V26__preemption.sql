-- Preemption with checkpoints (issue 35). Whether a job may be preempted, the grace between its
-- signal and SIGKILL, and the signal; the warning before its timeout; how often it was requeued by
-- a preemption or by its own request (never counted against retry.maxAttempts). A job stored
-- before, or inserted by an older node sharing the database, is not preemptible.
alter table jobs add column preemptible boolean default false not null;
alter table jobs add column preempt_grace_millis bigint;
alter table jobs add column preempt_signal varchar(8);
alter table jobs add column timeout_signal varchar(8);
alter table jobs add column timeout_signal_before_millis bigint;
alter table jobs add column requeues integer default 0 not null;
-- While a running job is being preempted: why (FAIR_SHARE, REQUEUE_EXIT, MANUAL) and the waiting
-- job it serves; while a queued job is held for the place a preemption frees: the node.
alter table jobs add column preempt_reason varchar(16);
alter table jobs add column preempted_for varchar(64);
alter table jobs add column held_on varchar(255);
