-- Issue 35: the waiting job a fair-share preemption served, kept on the attempt it ended (the job's
-- own preempted_for is cleared when it is queued again). Shown to admins only.
alter table job_attempts add column preempted_for varchar(26);
