-- Fair share reads the first queued jobs of every owner at once: this index holds each owner's
-- queued jobs in scheduling order with what picking them needs (the kind, the sweep), so that the
-- pass reads every queued job's key from the index alone, sorted, and then only the rows it picked.
create index jobs_queue_by_owner on jobs (state, owner, priority desc, id, gpus, sweep_id);
