package io.gpuq.job;

/** Who sent a request: the name of its token, and what that token may do. */
public record Caller(String name, Role role) {

  /** What a token may do: submitters see and act on their own jobs, admins on every job. */
  public enum Role {
    SUBMITTER,
    ADMIN
  }

  public boolean isAdmin() {
    return role == Role.ADMIN;
  }

  /** Whether this caller may see and act on a job owned by {@code owner}. */
  public boolean mayAccessJobOf(String owner) {
    return isAdmin() || name.equals(owner);
  }
}
