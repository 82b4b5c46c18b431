"""Seed 004's two ways of running many short RL runs without a scheduler, for comparison with gpuq.

    python baselines.py pool RUNS WORKERS STEPS   # torch.multiprocessing.Pool(WORKERS), as the seed wrote it
    python baselines.py procs RUNS PROCS STEPS    # PROCS processes at once, each its share of the runs
    python baselines.py loky RUNS N_JOBS STEPS    # joblib's loky backend with N_JOBS workers (issue 36)
    python baselines.py ray RUNS CPUS STEPS       # Ray Tune, 1 CPU per trial, reuse_actors false
    python baselines.py ray-reuse RUNS CPUS STEPS # the same with reuse_actors true

Ray's modes exit 3 with the reason on standard error where Ray cannot be imported or started.

Prints one JSON line: the mode, the runs, the makespan in seconds.
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def one_run(seed_and_steps):
    # Imported here, as the seed's worker function does: each pool worker pays torch's import once.
    sys.path.insert(0, HERE)
    import cartpole

    seed, steps = seed_and_steps
    sys.argv = ["cartpole.py", str(seed), str(steps)]
    return cartpole.main()


def pool(runs, workers, steps):
    import torch.multiprocessing as mp

    with mp.get_context("spawn").Pool(workers) as workers_pool:
        return workers_pool.map(one_run, [(seed, steps) for seed in range(runs)], chunksize=1)


def procs(runs, count, steps):
    # Each process runs its share of the seeds one after another: count processes at once.
    shares = [list(range(runs))[i::count] for i in range(count)]
    script = "; ".join(
        [
            "import sys",
            f"sys.path.insert(0, {HERE!r})",
            "import cartpole",
            "seeds = [int(s) for s in sys.argv[1].split(',')]",
            "steps = sys.argv[2]",
            "[(setattr(sys, 'argv', ['cartpole.py', str(s), steps]), cartpole.main()) for s in seeds]",
        ]
    )
    children = [
        subprocess.Popen([sys.executable, "-c", script, ",".join(map(str, share)), str(steps)],
                         stdout=subprocess.DEVNULL)
        for share in shares if share
    ]
    return [child.wait() for child in children]


def loky(runs, n_jobs, steps):
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs, backend="loky")(
        delayed(one_run)((seed, steps)) for seed in range(runs))


def tune_trainable(config):
    # Imported in the trial's actor, as a Tune user's trainable would.
    sys.path.insert(0, HERE)
    import cartpole

    sys.argv = ["cartpole.py", str(config["seed"]), str(config["steps"])]
    cartpole.main()
    return {"done_runs": 1}


def ray_tune(runs, cpus, steps, reuse):
    try:
        import ray
        from ray import tune
    except Exception as e:  # noqa: BLE001 - any failure to import is a skip
        sys.stderr.write("ray cannot be imported: %s\n" % e)
        raise SystemExit(3)
    try:
        ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False,
                 configure_logging=False)
    except Exception as e:  # noqa: BLE001
        sys.stderr.write("ray cannot start: %s\n" % e)
        raise SystemExit(3)
    try:
        tuner = tune.Tuner(
            tune.with_resources(tune_trainable, {"cpu": 1}),
            param_space={"seed": tune.grid_search(list(range(runs))), "steps": steps},
            tune_config=tune.TuneConfig(reuse_actors=reuse, max_concurrent_trials=cpus),
        )
        results = tuner.fit()
        if results.errors:
            raise SystemExit("a trial failed: %s" % results.errors[0])
        return [0] * runs
    finally:
        ray.shutdown()


def main():
    mode, runs, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 5_000
    start = time.monotonic()
    ways = {"pool": pool, "procs": procs, "loky": loky,
            "ray": lambda r, w, s: ray_tune(r, w, s, False),
            "ray-reuse": lambda r, w, s: ray_tune(r, w, s, True)}
    results = ways[mode](runs, width, steps)
    if mode == "procs" and any(code != 0 for code in results):
        raise SystemExit(f"a process failed: {results}")
    print(json.dumps({"mode": mode, "runs": runs, "width": width, "steps": steps,
                      "makespan_s": round(time.monotonic() - start, 2),
                      # The waited-for children's CPU: for procs, every run's.
                      "cpu_s": round(os.times().children_user + os.times().children_system, 2)}),
          flush=True)


if __name__ == "__main__":
    main()
