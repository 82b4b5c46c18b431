-- The cores a job's attempt was given (issue 27), as a CPU list ("2-3,6"), and how it is held to
-- them: 'cgroup' (its group's cpuset) or 'affinity' (bound at birth by sched_setaffinity). Written
-- with the worker's PID; null for an attempt bound to nothing (confinement off) or written by an
-- older gpuq.
alter table job_attempts add column cores varchar(1024);
alter table job_attempts add column cores_bound_by varchar(16);
