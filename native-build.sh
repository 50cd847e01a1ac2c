#!/usr/bin/env bash
# Builds oncepay-functions/target/function.zip, the one artifact that all three oncepay Lambda functions run.
set -euo pipefail

usage() {
  cat <<'USAGE'
Usage: ./native-build.sh [--jvm] [--tests] [--dry-run] [-h|--help] [-- MAVEN_ARGS...]

Builds oncepay-functions/target/function.zip for AWS Lambda.

Native (default; Lambda runtime provided.al2023), with the first of:
  1. a local GraalVM or Mandrel (Linux only): $GRAALVM_HOME/bin/native-image, or native-image on PATH
  2. a container build (Quarkus' Mandrel builder image) with a running Docker, else Podman
Otherwise it stops and says what is missing.

  --jvm       build the JVM artifact instead (Lambda runtime java21); deploy it with
              -c oncepay:runtime=jvm (see infra/README.md)
  --tests     run the test suite too (needs `npm ci` first); skipped by default
  --dry-run   print the Maven command it would run, and run nothing
  -h, --help  this help
  Anything after -- goes to Maven, e.g. -- -Dquarkus.native.native-image-xmx=6g
USAGE
}

fail() {
  echo "native-build.sh: $*" >&2
  exit 2
}

mode=native
tests=false
dry_run=false
maven_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jvm) mode=jvm ;;
    --tests) tests=true ;;
    --dry-run) dry_run=true ;;
    -h | --help) usage; exit 0 ;;
    --) shift; maven_args+=("$@"); break ;;
    *) usage >&2; fail "unknown argument: $1" ;;
  esac
  shift
done

cd "$(dirname "${BASH_SOURCE[0]}")"

# The Maven Wrapper (./mvnw) brings the Maven release the build needs; it downloads it on first use.
[[ -x ./mvnw ]] || fail "the Maven Wrapper ./mvnw is missing: run this from an oncepay checkout"
command -v java >/dev/null 2>&1 || fail "java is not on PATH: install a JDK 17+"

cmd=(./mvnw -B package -pl oncepay-functions -am)
[[ "$tests" == true ]] || cmd+=(-DskipTests)

if [[ "$mode" == native ]]; then
  how=""
  if [[ "$(uname -s)" == Linux ]]; then
    if [[ -n "${GRAALVM_HOME:-}" && -x "${GRAALVM_HOME}/bin/native-image" ]]; then
      how="local GraalVM/Mandrel at $GRAALVM_HOME"
    elif command -v native-image >/dev/null 2>&1; then
      how="local GraalVM/Mandrel ($(command -v native-image))"
    elif [[ -n "${GRAALVM_HOME:-}" ]]; then
      echo "native-build.sh: GRAALVM_HOME=$GRAALVM_HOME has no bin/native-image; looking for a container runtime" >&2
    fi
  elif command -v native-image >/dev/null 2>&1 || [[ -n "${GRAALVM_HOME:-}" ]]; then
    echo "native-build.sh: a local native-image on $(uname -s) builds a $(uname -s) binary, but Lambda runs Linux;" \
      "looking for a container runtime" >&2
  fi
  cmd+=(-Pnative)
  if [[ -z "$how" ]]; then
    not_running=()
    for runtime in docker podman; do
      if command -v "$runtime" >/dev/null 2>&1; then
        if "$runtime" info >/dev/null 2>&1; then
          how="container build with $runtime"
          cmd+=(-Dquarkus.native.container-build=true "-Dquarkus.native.container-runtime=$runtime")
          break
        fi
        not_running+=("$runtime")
      fi
    done
  fi
  if [[ -z "$how" ]]; then
    {
      echo "native-build.sh: cannot build the native function.zip here. Missing:"
      echo "  - a GraalVM or Mandrel native-image for JDK 21 or later, on Linux (set GRAALVM_HOME to it,"
      echo "    or put native-image on PATH); e.g. SDKMAN's java <version>-mandrel or -graal"
      if [[ ${#not_running[@]} -gt 0 ]]; then
        echo "  - a running container engine: ${not_running[*]} is installed but not reachable ('${not_running[0]} info' failed);"
        echo "    start it (the build pulls Quarkus' Mandrel builder image)"
      else
        echo "  - a container engine for a container build: Docker or Podman, running"
        echo "    (the build pulls Quarkus' Mandrel builder image)"
      fi
      echo "Or build the JVM artifact instead: ./native-build.sh --jvm (deploy it with -c oncepay:runtime=jvm)."
    } >&2
    exit 3
  fi
else
  how="JVM build"
fi

cmd+=(${maven_args[@]+"${maven_args[@]}"})

echo "native-build.sh: $mode function.zip, $how" >&2
if [[ "$dry_run" == true ]]; then
  echo "${cmd[*]}"
  exit 0
fi

# A failed build must not leave an older function.zip behind that looks like its result.
rm -f oncepay-functions/target/function.zip
"${cmd[@]}"

zip=oncepay-functions/target/function.zip
[[ -f "$zip" ]] || fail "the build finished but $zip is missing"
if command -v unzip >/dev/null 2>&1; then
  entries="$(unzip -Z1 "$zip")"
elif command -v jar >/dev/null 2>&1; then
  entries="$(jar tf "$zip")"
else
  entries=""
fi
if [[ -n "$entries" ]]; then
  has_bootstrap=false
  grep -qx bootstrap <<<"$entries" && has_bootstrap=true
  if [[ "$mode" == native && "$has_bootstrap" != true ]]; then
    fail "$zip has no bootstrap: it is not a native Lambda build"
  fi
  if [[ "$mode" == jvm && "$has_bootstrap" == true ]]; then
    fail "$zip has a bootstrap: it is not a JVM Lambda build"
  fi
fi

arch="$(uname -m)"
echo "native-build.sh: built $zip ($(du -h "$zip" | cut -f1))" >&2
if [[ "$mode" == native ]]; then
  case "$arch" in
    aarch64 | arm64) echo "native-build.sh: built on $arch: deploy with -c oncepay:architecture=arm64" >&2 ;;
  esac
  echo "native-build.sh: deploy: cd infra && npx cdk deploy --parameters ... (see infra/README.md)" >&2
else
  echo "native-build.sh: deploy: cd infra && npx cdk deploy -c oncepay:runtime=jvm --parameters ... (see infra/README.md)" >&2
fi
