# Sourced by run-local.sh and drill.sh: what both need before they start Java.
#   tooling_prepare NAME MODULE BUILD   checks the tools, installs dynalite, builds (BUILD=1)
#                                       oncepay-functions/target/function.zip and MODULE (oncepay-local
#                                       or oncepay-drill) with its runtime class path; exits if nothing is built
#   tooling_classpath MODULE            the class path of that module's JVM
tooling_prepare() {
  local name=$1 module=$2 build=$3 tool
  for tool in "java:install Java 17 or newer" \
      "node:install Node.js 20 or newer (dynalite, the local DynamoDB, runs on it)"; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || { echo "$name: '${tool%%:*}' not found: ${tool#*:}" >&2; exit 3; }
  done
  if [ ! -f node_modules/dynalite/cli.js ]; then
    echo "$name: installing dynalite (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
  if [ "$build" = 1 ]; then
    echo "$name: building oncepay-functions/target/function.zip and $module (./mvnw package -DskipTests)"
    ./mvnw -q -B package -DskipTests -pl "oncepay-functions,$module" -am
  fi
  if [ ! -f oncepay-functions/target/function.zip ] || [ ! -f "$module/target/runtime.classpath" ]; then
    echo "$name: nothing built yet; run it without --skip-build" >&2
    exit 3
  fi
}

tooling_classpath() {
  echo "$1/target/classes:$(cat "$1/target/runtime.classpath")"
}
