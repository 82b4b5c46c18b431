"""One short RL training run: REINFORCE with a small PyTorch policy on gymnasium's CartPole.

The unit of seed 004's workload (1,350 such runs): each keeps one core busy for a few seconds.
Runs a fixed number of environment steps, so every run does the same work whatever it learns.

    python cartpole.py SEED [STEPS]

Prints one line: the seed, the steps, the mean return of the last 10 episodes, and the run's CPU
and wall seconds. Writes the same as JSON lines to $GPUQ_METRICS_FILE when gpuq runs it.
"""

import json
import os
import sys
import time

import gymnasium as gym
import torch
from torch import nn


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5_000
    wall0, cpu0 = time.monotonic(), time.process_time()
    torch.manual_seed(seed)
    env = gym.make("CartPole-v1")
    policy = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))
    optimiser = torch.optim.Adam(policy.parameters(), lr=1e-2)
    returns, done_steps, episode = [], 0, 0
    while done_steps < steps:
        observation, _ = env.reset(seed=seed * 100_000 + episode)
        log_probs, rewards = [], []
        finished = False
        while not finished and done_steps < steps:
            logits = policy(torch.as_tensor(observation, dtype=torch.float32))
            action = torch.distributions.Categorical(logits=logits).sample()
            log_probs.append(torch.distributions.Categorical(logits=logits).log_prob(action))
            observation, reward, terminated, truncated, _ = env.step(action.item())
            rewards.append(float(reward))
            finished = terminated or truncated
            done_steps += 1
        discounted, running = [], 0.0
        for reward in reversed(rewards):
            running = reward + 0.99 * running
            discounted.append(running)
        discounted = torch.tensor(list(reversed(discounted)))
        discounted = (discounted - discounted.mean()) / (discounted.std() + 1e-8) if len(rewards) > 1 else discounted
        loss = -(torch.stack(log_probs) * discounted).sum()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        returns.append(sum(rewards))
        episode += 1
    result = {
        "seed": seed,
        "steps": done_steps,
        "episodes": episode,
        "mean_return_last_10": sum(returns[-10:]) / len(returns[-10:]),
        "cpu_s": round(time.process_time() - cpu0, 3),
        "wall_s": round(time.monotonic() - wall0, 3),
    }
    print(json.dumps(result), flush=True)
    metrics = os.environ.get("GPUQ_METRICS_FILE")
    if metrics:
        with open(metrics, "a") as out:
            out.write(json.dumps({"step": done_steps, "return": result["mean_return_last_10"]}) + "\n")
    return result


if __name__ == "__main__":
    main()
