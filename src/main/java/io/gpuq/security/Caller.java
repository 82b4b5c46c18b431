package io.gpuq.security;

import io.gpuq.config.GpuqProperties.Auth.Role;

/** Who sent a request: the name of its token, and what that token may do. */
public record Caller(String name, Role role) {

  public boolean isAdmin() {
    return role == Role.ADMIN;
  }

  /** Whether this caller may see and act on a job owned by {@code owner}. */
  public boolean mayAccessJobOf(String owner) {
    return isAdmin() || name.equals(owner);
  }
}
