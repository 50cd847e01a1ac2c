# Sourced by run-local.sh and drill.sh: what both need before they start Java.
#   tooling_prepare NAME BUILD   checks the tools, installs dynalite, builds (BUILD=1) target/function.zip
#                                and the test-scoped tooling's classpath; exits if nothing is built
#   tooling_classpath            the classpath of the local run / drill JVM
tooling_classpath_file=target/local-run.classpath

tooling_prepare() {
  local name=$1 build=$2 tool
  for tool in "java:install Java 17 or newer" \
      "node:install Node.js 20 or newer (dynalite, the local DynamoDB, runs on it)"; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || { echo "$name: '${tool%%:*}' not found: ${tool#*:}" >&2; exit 3; }
  done
  if [ ! -f node_modules/dynalite/cli.js ]; then
    echo "$name: installing dynalite (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
  if [ "$build" = 1 ]; then
    echo "$name: building target/function.zip and the test tooling (./mvnw package -DskipTests)"
    ./mvnw -q -B package dependency:build-classpath -DskipTests \
      -Dmdep.includeScope=test -Dmdep.outputFile="$tooling_classpath_file"
  fi
  if [ ! -f target/function.zip ] || [ ! -f "$tooling_classpath_file" ]; then
    echo "$name: nothing built yet; run it without --skip-build" >&2
    exit 3
  fi
}

tooling_classpath() {
  echo "target/test-classes:target/classes:$(cat "$tooling_classpath_file")"
}
