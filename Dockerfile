# gpuq: a GPU job scheduler for training runs.
#
#   docker build -t gpuq .
#   docker run --gpus all --pid=host -p 8080:8080 -v gpuq-data:/var/lib/gpuq \
#     --cap-drop ALL --cap-add CHOWN --cap-add DAC_OVERRIDE --cap-add KILL \
#     --cap-add SETUID --cap-add SETGID --security-opt no-new-privileges gpuq
#
# --pid=host matters: NVML reports host PIDs, and gpuq recognises its workers' GPU memory by
# matching those PIDs against its own process trees (docs/deploy.md, "Why the host PID namespace").
#
# gpuq runs as root with exactly five capabilities (docs/deploy.md, "Privileges"), because it
# runs each job as another account (gpuq-job below, or the account the job's token names):
#   CHOWN         gives each job's work directory to the job's account;
#   DAC_OVERRIDE  enters each job's own 0700 work directory to start the job there;
#   KILL          signals worker process trees that run as other uids (cancel, timeout, budget);
#   SETUID/SETGID the worker wrapper's setpriv --reuid/--regid/--init-groups, which drops the
#                 user's program to the job's account before it starts.
# Without --cap-drop ALL, root keeps Docker's default set (FOWNER, MKNOD, NET_RAW, ...) as well.
# no-new-privileges stays: it does not stop a process holding CAP_SETUID from lowering its uid.

# ---- build: the same Maven command CI runs (.ci/run) --------------------------------------------
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY src/ src/
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B package -DskipTests \
 && cp target/gpuq-*.jar /gpuq.jar
# The jar unpacked by Spring Boot's own tooling (gpuq.jar and lib/): the JVM's class-data sharing
# can archive classes from plain jars only, not from the jars nested in /gpuq.jar.
RUN java -Djarmode=tools -jar /gpuq.jar extract --destination /gpuq-extracted

# ---- runtime -----------------------------------------------------------------------------------
FROM eclipse-temurin:17-jre

# util-linux: setpriv drops each worker to its job's account; setsid puts every worker in its own
# session so a cancel stops its whole tree.
# tini: reaps orphaned grandchildren of workers (as PID 1, or as a subreaper with --pid=host).
# curl: the HEALTHCHECK below.
RUN apt-get update \
 && apt-get install -y --no-install-recommends util-linux tini curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# The account jobs run as (GPUQ_WORKER_RUN_AS below): unprivileged, its own group, no login shell,
# a private home for the caches of pip, Hugging Face & co. Fixed ids, so that files it writes to
# mounted volumes have an owner you can plan for. The data dir belongs to root, gpuq's own user;
# gpuq sets its modes at start (0711: jobs reach their own directories inside, nothing else).
RUN groupadd --gid 10002 gpuq-job \
 && useradd --no-log-init --uid 10002 --gid gpuq-job --home-dir /home/gpuq-job --create-home \
      --shell /usr/sbin/nologin gpuq-job \
 && chmod 0700 /home/gpuq-job \
 && mkdir -p /var/lib/gpuq /opt/gpuq \
 && chmod 0711 /var/lib/gpuq

# /opt/gpuq/gpuq.jar: the jar as built, for images that copy it (docs/deploy.md). gpuq runs from
# /opt/gpuq/app: the same jar unpacked, with a class-data-sharing archive (below).
COPY --from=build /gpuq.jar /opt/gpuq/gpuq.jar
COPY --from=build /gpuq-extracted/ /opt/gpuq/app/

# NVIDIA's container toolkit reads these two to mount the driver's libnvidia-ml.so (NVML) and the
# device nodes; "utility" is what brings NVML, "compute" brings CUDA for the workers.
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility \
    GPUQ_DATA_DIR=/var/lib/gpuq \
    GPUQ_WORKER_RUN_AS=gpuq-job \
    SERVER_PORT=8080

# H2 database (unless PostgreSQL is configured), job directories and logs, generated admin.token.
VOLUME ["/var/lib/gpuq"]
WORKDIR /var/lib/gpuq
# root, not a non-root USER: a non-root process cannot use capabilities added with --cap-add (they
# stay out of its effective set), and gpuq needs the five above to run jobs as other accounts.
# Jobs never run as root: each is dropped to GPUQ_WORKER_RUN_AS (or its token's account).
USER root
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${SERVER_PORT}/actuator/health" || exit 1

# gpuq's JVM compiles with C1 only: a control plane that mostly waits gains little from C2, whose
# compilations cost several seconds of CPU under load that the node's training runs need
# (docs/benchmarks.md). Set JDK_JAVA_OPTIONS="" to get the JVM's default (C1 then C2).
ENV JDK_JAVA_OPTIONS="-XX:TieredStopAtLevel=1"

# Class-data sharing: one start during the build, stopped as soon as its context is refreshed,
# leaves an archive of every class it loaded, parsed and verified; each start of the container
# maps it instead of loading them again. With the bean definitions generated at build time (the
# pom's process-aot) gpuq needs a third of the CPU time to be ready (docs/benchmarks.md, "Start-up").
# A JVM started with options the archive does not fit starts without it, and says so.
RUN java -XX:ArchiveClassesAtExit=/opt/gpuq/app/gpuq.jsa -Dspring.context.exit=onRefresh \
      -jar /opt/gpuq/app/gpuq.jar --gpuq.data-dir=/tmp/gpuq-cds --gpuq.gpu.backend=emulated \
 && rm -rf /tmp/gpuq-cds

# Further JVM options go in JAVA_TOOL_OPTIONS (the JVM reads it itself); Spring properties as
# environment variables (GPUQ_*, SPRING_*) or as arguments (--gpuq.gpu.backend=emulated).
# -s: with --pid=host (or Kubernetes' hostPID) tini is not PID 1, and reaps orphaned grandchildren
# of workers only as a registered subreaper.
# -XX:+ExitOnOutOfMemoryError: after an OutOfMemoryError any thread, H2's writer among them, may
# have died half-way; a JVM that goes on writes its database from a broken state (docs/backup.md).
# It exits at once instead, like a kill -9, which H2 survives, and the engine (restart:) or
# Kubernetes restarts it. On the command line, not in JDK_JAVA_OPTIONS, so that emptying or
# replacing those (or JAVA_TOOL_OPTIONS, the chart's javaToolOptions) keeps it.
ENTRYPOINT ["/usr/bin/tini", "-s", "--", "java", "-XX:+ExitOnOutOfMemoryError", \
            "-XX:SharedArchiveFile=/opt/gpuq/app/gpuq.jsa", "-jar", "/opt/gpuq/app/gpuq.jar"]
