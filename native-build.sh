#!/usr/bin/env bash
# Builds oncepay-functions/target/function.zip, the one artifact that all three oncepay Lambda functions run.
set -euo pipefail

# The builder image of a container build: Quarkus 3.34's default (quarkus.native.builder-image=mandrel).
# NativeBuildScriptTest checks it against the Quarkus the build uses.
MANDREL_IMAGE=quay.io/quarkus/ubi9-quarkus-mandrel-builder-image:jdk-25

usage() {
  cat <<'USAGE'
Usage: ./native-build.sh [--jvm] [--tests] [--dry-run | --check] [-h|--help] [-- MAVEN_ARGS...]

Builds oncepay-functions/target/function.zip for AWS Lambda.

Native (default; Lambda runtime provided.al2023): ./mvnw package -Dnative, with the first of:
  1. a local GraalVM or Mandrel (Linux only): $GRAALVM_HOME/bin/native-image, or native-image on PATH
  2. a container build (Quarkus' Mandrel builder image) with a running Docker, else Podman
Otherwise it stops and says what is missing. It prints what it runs before running it.

  --jvm       build the JVM artifact instead (Lambda runtime java21); deploy it with
              -c oncepay:runtime=jvm (see infra/README.md)
  --tests     run the test suite too (needs `npm ci` first); skipped by default
  --dry-run   print what it would run and run nothing: the Maven command on stdout, how
              native-image would run on stderr
  --check     only say how this machine builds natively, and exit 3 if it cannot (the native
              Maven profile runs this first, so ./mvnw package -Dnative fails at once without it)
  -h, --help  this help
  Anything after -- goes to Maven, e.g. -- -Dquarkus.native.native-image-xmx=6g
USAGE
}

fail() {
  echo "native-build.sh: $*" >&2
  exit 2
}

say() {
  echo "native-build.sh: $*" >&2
}

mode=native
tests=false
dry_run=false
check=false
maven_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --jvm) mode=jvm ;;
    --tests) tests=true ;;
    --dry-run) dry_run=true ;;
    --check) check=true ;;
    -h | --help) usage; exit 0 ;;
    --) shift; maven_args+=("$@"); break ;;
    *) usage >&2; fail "unknown argument: $1" ;;
  esac
  shift
done
[[ "$check" == true && "$mode" == jvm ]] && fail "--check is about the native build; a JVM build needs only Java"

cd "$(dirname "${BASH_SOURCE[0]}")"

# How this machine runs native-image: sets native_image (a local binary) or container_runtime, and
# not_running (engines installed but not answering).
native_image=""
container_runtime=""
not_running=()
find_native_toolchain() {
  if [[ "$(uname -s)" == Linux ]]; then
    if [[ -n "${GRAALVM_HOME:-}" && -x "${GRAALVM_HOME}/bin/native-image" ]]; then
      native_image="${GRAALVM_HOME}/bin/native-image"
    elif command -v native-image >/dev/null 2>&1; then
      native_image="$(command -v native-image)"
    elif [[ -n "${GRAALVM_HOME:-}" ]]; then
      say "GRAALVM_HOME=$GRAALVM_HOME has no bin/native-image; looking for a container runtime"
    fi
  elif command -v native-image >/dev/null 2>&1 || [[ -n "${GRAALVM_HOME:-}" ]]; then
    say "a local native-image on $(uname -s) builds a $(uname -s) binary, but Lambda runs Linux; looking for a container runtime"
  fi
  if [[ -z "$native_image" ]]; then
    local runtime
    for runtime in docker podman; do
      if command -v "$runtime" >/dev/null 2>&1; then
        if "$runtime" info >/dev/null 2>&1; then
          container_runtime="$runtime"
          return
        fi
        not_running+=("$runtime")
      fi
    done
  fi
}

# The builder image a container build uses: a -Dquarkus.native.builder-image=... given to Maven, else
# application.properties', else Quarkus' default.
builder_image() {
  local arg image=""
  for arg in ${maven_args[@]+"${maven_args[@]}"}; do
    [[ "$arg" == -Dquarkus.native.builder-image=* ]] && image="${arg#*=}"
  done
  if [[ -z "$image" ]]; then
    image="$(sed -n 's/^quarkus\.native\.builder-image *= *//p' oncepay-functions/src/main/resources/application.properties 2>/dev/null | tail -1)"
  fi
  echo "${image:-$MANDREL_IMAGE}"
}

# What native-image runs with: the toolchain, then the native settings of the build.
describe_native() {
  if [[ -n "$native_image" ]]; then
    say "native-image: $native_image ($("$native_image" --version 2>/dev/null | head -1 || true)), on this machine"
  else
    say "native-image: in a container of $(builder_image), run by $container_runtime (quarkus.native.container-build=true)"
  fi
  local settings=("quarkus.native.enabled=true" "quarkus.package.jar.enabled=false")
  local line arg
  while IFS= read -r line; do
    settings+=("$line")
  done < <(grep -E '^quarkus\.native\.' oncepay-functions/src/main/resources/application.properties 2>/dev/null || true)
  for arg in ${maven_args[@]+"${maven_args[@]}"}; do
    [[ "$arg" == -Dquarkus.native.* ]] && settings+=("${arg#-D}")
  done
  say "native settings: ${settings[*]}"
  say "then: the binary becomes bootstrap in oncepay-functions/target/function.zip (Lambda runtime provided.al2023)"
}

missing_toolchain() {
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
    echo "Where one is, ./mvnw package -Dnative compiles and packages the classes, then runs Quarkus' native-image"
    echo "step (quarkus.native.enabled=true): native-image from GRAALVM_HOME or PATH, or else the same inside"
    echo "$(builder_image) (docker or podman run); the binary becomes bootstrap in"
    echo "oncepay-functions/target/function.zip (Lambda runtime provided.al2023)."
    echo "Or build the JVM artifact instead: ./native-build.sh --jvm (deploy it with -c oncepay:runtime=jvm)."
  } >&2
  exit 3
}

if [[ "$check" == true ]]; then
  find_native_toolchain
  [[ -n "$native_image" || -n "$container_runtime" ]] || missing_toolchain
  describe_native
  exit 0
fi

# The Maven Wrapper (./mvnw) brings the Maven release the build needs; it downloads it on first use.
[[ -x ./mvnw ]] || fail "the Maven Wrapper ./mvnw is missing: run this from an oncepay checkout"
command -v java >/dev/null 2>&1 || fail "java is not on PATH: install a JDK 17+"

cmd=(./mvnw -B package -pl oncepay-functions -am)
[[ "$tests" == true ]] || cmd+=(-DskipTests)

if [[ "$mode" == native ]]; then
  find_native_toolchain
  [[ -n "$native_image" || -n "$container_runtime" ]] || missing_toolchain
  # -Dnative activates the functions' native profile, as in Quarkus' own projects and guides.
  cmd+=(-Dnative)
  if [[ -n "$container_runtime" ]]; then
    cmd+=(-Dquarkus.native.container-build=true "-Dquarkus.native.container-runtime=$container_runtime")
  fi
fi
cmd+=(${maven_args[@]+"${maven_args[@]}"})

say "$mode function.zip: ${cmd[*]}"
[[ "$mode" == native ]] && describe_native
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
say "built $zip ($(du -h "$zip" | cut -f1))"
if [[ "$mode" == native ]]; then
  case "$arch" in
    aarch64 | arm64) say "built on $arch: deploy with -c oncepay:architecture=arm64" ;;
  esac
  say "deploy: cd infra && npx cdk deploy --parameters ... (see infra/README.md)"
else
  say "deploy: cd infra && npx cdk deploy -c oncepay:runtime=jvm --parameters ... (see infra/README.md)"
fi
