#!/usr/bin/env bash
# The chaos drill (issue 5): starts the local run (dynalite, PSP simulator, the three functions in
# sandbox JVMs, API gateway, reconcile every few seconds) on free ports, drives N payments from M
# good clients through provider faults, a provider outage and SIGKILLed sandboxes, lets everything
# settle, and checks the simulator's ledger against oncepay's table and every client's last answer.
# Prints `double charges: n`, `lost: n`, `stuck: n`, `disagreeing answers: n`; exits non-zero if
# any is above 0. Writes target/drill/report.html and summary.txt.
#
#   ./drill.sh [--skip-build] [--payments N] [--clients M] [--seed S] [--fault-profile P] ...
#   ./drill.sh --help
set -euo pipefail
cd "$(dirname "$0")"

command -v java >/dev/null 2>&1 || { echo "drill.sh: java not found (Java 17+)" >&2; exit 3; }
command -v mvn >/dev/null 2>&1 || { echo "drill.sh: mvn not found (Maven 3.8+)" >&2; exit 3; }
command -v node >/dev/null 2>&1 || { echo "drill.sh: node not found (Node.js 20+, for dynalite)" >&2; exit 3; }

build=1
args=()
for arg in "$@"; do
  case "$arg" in
    --skip-build) build=0 ;;
    -h|--help) [ -f target/local-run.classpath ] && build=0; args+=("$arg") ;;
    *) args+=("$arg") ;;
  esac
done

classpath_file=target/local-run.classpath
if [ ! -f node_modules/dynalite/cli.js ]; then
  echo "drill.sh: installing dynalite (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ "$build" = 1 ]; then
  echo "drill.sh: building target/function.zip and the test tooling (mvn package -DskipTests)"
  mvn -q -B package dependency:build-classpath -DskipTests \
    -Dmdep.includeScope=test -Dmdep.outputFile="$classpath_file"
fi
if [ ! -f target/function.zip ] || [ ! -f "$classpath_file" ]; then
  echo "drill.sh: nothing built yet; run it without --skip-build" >&2
  exit 3
fi

classpath="target/test-classes:target/classes:$(cat "$classpath_file")"
# The drill JVM hosts the local run (gateway, simulator, supervisor) and the clients; the
# sandboxes are JVMs of their own. Ctrl-C: the JVM's shutdown stops the children, and each child
# also exits when its stdin (a pipe from this JVM) closes.
exec java -Xmx768m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
  -cp "$classpath" dev.oncepay.drill.Drill ${args[@]+"${args[@]}"}
