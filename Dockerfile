# gpuq: a GPU job scheduler for training runs.
#
#   docker build -t gpuq .
#   docker run --gpus all --pid=host -p 8080:8080 -v gpuq-data:/var/lib/gpuq gpuq
#
# --pid=host matters: NVML reports host PIDs, and gpuq recognises its workers' GPU memory by
# matching those PIDs against its own process trees (docs/deploy.md, "Why the host PID namespace").

# ---- build: the same Maven command CI runs (.ci/run) --------------------------------------------
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY src/ src/
RUN --mount=type=cache,target=/root/.m2 \
    ./mvnw -B package -DskipTests \
 && cp target/gpuq-*.jar /gpuq.jar

# ---- runtime -----------------------------------------------------------------------------------
FROM eclipse-temurin:17-jre

# util-linux: setsid puts every worker in its own session so a cancel stops its whole tree.
# tini: reaps orphaned grandchildren of workers when gpuq runs as PID 1 (no --pid=host).
# curl: the HEALTHCHECK below.
RUN apt-get update \
 && apt-get install -y --no-install-recommends util-linux tini curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# A fixed uid, so that a hostPath or bind-mounted data dir can be chowned to it in advance.
RUN groupadd --system --gid 10001 gpuq \
 && useradd --system --uid 10001 --gid gpuq --home-dir /var/lib/gpuq --shell /usr/sbin/nologin gpuq \
 && mkdir -p /var/lib/gpuq /opt/gpuq \
 && chown gpuq:gpuq /var/lib/gpuq

COPY --from=build /gpuq.jar /opt/gpuq/gpuq.jar

# NVIDIA's container toolkit reads these two to mount the driver's libnvidia-ml.so (NVML) and the
# device nodes; "utility" is what brings NVML, "compute" brings CUDA for the workers.
ENV NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility \
    GPUQ_DATA_DIR=/var/lib/gpuq \
    SERVER_PORT=8080

# H2 database (unless PostgreSQL is configured), job directories and logs, generated admin.token.
VOLUME ["/var/lib/gpuq"]
WORKDIR /var/lib/gpuq
USER gpuq:gpuq
EXPOSE 8080

HEALTHCHECK --interval=30s --timeout=5s --start-period=90s --retries=3 \
  CMD curl -fsS -o /dev/null "http://127.0.0.1:${SERVER_PORT}/actuator/health" || exit 1

# gpuq's JVM compiles with C1 only: a control plane that mostly waits gains little from C2, whose
# compilations cost several seconds of CPU under load that the node's training runs need
# (docs/benchmarks.md). Set JDK_JAVA_OPTIONS="" to get the JVM's default (C1 then C2).
ENV JDK_JAVA_OPTIONS="-XX:TieredStopAtLevel=1"

# Further JVM options go in JAVA_TOOL_OPTIONS (the JVM reads it itself); Spring properties as
# environment variables (GPUQ_*, SPRING_*) or as arguments (--gpuq.gpu.backend=emulated).
ENTRYPOINT ["/usr/bin/tini", "--", "java", "-jar", "/opt/gpuq/gpuq.jar"]
