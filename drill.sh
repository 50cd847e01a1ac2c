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

# shellcheck source=scripts/local-tooling.sh
. scripts/local-tooling.sh

build=1
args=()
for arg in "$@"; do
  case "$arg" in
    --skip-build) build=0 ;;
    -h|--help) [ -f "$tooling_classpath_file" ] && build=0; args+=("$arg") ;;
    *) args+=("$arg") ;;
  esac
done

tooling_prepare drill.sh "$build"
classpath=$(tooling_classpath)
# The drill JVM hosts the local run (gateway, simulator, supervisor) and the clients; the
# sandboxes are JVMs of their own. Ctrl-C: the JVM's shutdown stops the children, and each child
# also exits when its stdin (a pipe from this JVM) closes.
exec java -Xmx768m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
  -cp "$classpath" dev.oncepay.drill.Drill ${args[@]+"${args[@]}"}
