-- The budget a job asked for, kept as submitted: gpu_memory_bytes and gpu_fraction are the budget
-- its next attempt gets, grown after each attempt that failed for lack of GPU memory.
alter table jobs add column requested_gpu_memory_bytes bigint;
alter table jobs add column requested_gpu_fraction double precision;

-- Jobs stored before: a budget in bytes was its first attempt's; a fraction that grew is not known
-- any more, so the current one stands for it.
update jobs set requested_gpu_memory_bytes = coalesce(
        (select a.budget_bytes from job_attempts a where a.job_id = jobs.id and a.attempt = 1),
        gpu_memory_bytes)
    where gpu_memory_bytes is not null;
update jobs set requested_gpu_fraction = gpu_fraction where gpu_fraction is not null;
