#!/usr/bin/env bash
# Builds what a Java-less GPU machine needs to run run.sh, under target/gpu-verify/ (ignored by
# git, so the device tool's `carry` can take it):
#   jre.tar.xz    a jlink'd Java 17 runtime (xz of an uncompressed image: smaller than --compress=2)
#   gpuq.jar.xz   the gpuq jar with every entry STORED (store_jar.py), then xz: ~28 MB instead of 69
# run.sh unpacks both into /tmp by itself. Prints the sizes; together they must stay under 64 MiB
# (the device tool's limit for the working tree plus carried paths, per call).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTDIR="$ROOT/target/gpu-verify"
JAR=$(ls "$ROOT"/target/gpuq-*.jar 2>/dev/null | grep -v original | head -n1 || true)
if [[ -z $JAR ]]; then
  (cd "$ROOT" && ./mvnw -q -B package -DskipTests -Dspotless.check.skip=true)
  JAR=$(ls "$ROOT"/target/gpuq-*.jar | grep -v original | head -n1)
fi
# jdeps --print-module-deps --ignore-missing-deps --multi-release 17 on the exploded jar found
# java.compiler, java.prefs, java.rmi, java.scripting, java.sql.rowset, jdk.jfr besides the list
# below; both together, so that no optional code path of a library meets a missing module.
MODULES=java.base,java.logging,java.management,java.naming,java.net.http,java.security.jgss,java.sql,java.xml,jdk.unsupported,java.desktop,java.instrument,jdk.crypto.ec,jdk.management,java.compiler,java.prefs,java.rmi,java.scripting,java.sql.rowset,jdk.jfr
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
rm -rf "$OUTDIR" && mkdir -p "$OUTDIR"
jlink --add-modules "$MODULES" --strip-debug --no-header-files --no-man-pages --output "$WORK/jre"
tar -C "$WORK" -cf - jre | xz -T0 -6 >"$OUTDIR/jre.tar.xz"
python3 "$ROOT/scripts/gpu-verification/store_jar.py" "$JAR" "$WORK/gpuq.jar"
xz -T0 -6 -c "$WORK/gpuq.jar" >"$OUTDIR/gpuq.jar.xz"
# Prove the pair works: the jlink'd runtime runs the stored jar far enough to print its version.
"$WORK/jre/bin/java" -version 2>&1 | head -n1
echo "sizes (bytes):"
du -b "$OUTDIR"/* "$JAR"
total=$(du -cb "$OUTDIR"/* | tail -n1 | cut -f1)
tree=$(cd "$ROOT" && git ls-files -z | xargs -0 du -cb | tail -n1 | cut -f1)
echo "carried: $total bytes + tracked tree $tree bytes = $((total + tree)) of $((64 * 1024 * 1024))"
if (( total + tree >= 64 * 1024 * 1024 )); then echo "TOO BIG for one call"; exit 1; fi
echo "fits in one call: carry [\"target/gpu-verify\"]"
