#!/usr/bin/env bash
# oncepay on this machine, the way it runs on AWS:
#   - the store on 127.0.0.1:8000: a fault proxy (faults off; steer it with POST /_store/faults, e.g.
#     '{"throttleRate":0.2}' or '{"outage":true}', and POST /_store/reset) in front of dynalite (the
#     DynamoDB API, on a free port, --dynalite-port) with the table created,
#   - the PSP simulator on 127.0.0.1:8090 with both its APIs: the generic PSP (provider sim) and the
#     Stripe mode (provider stripe, /v1/payment_intents); their signed webhooks go to the gateway's
#     /webhooks/sim and /webhooks/stripe,
#   - the three functions (charge, webhook, reconcile) from the real target/function.zip, each in
#     sandbox JVMs running the Lambda handler under AWS's runtime interface client,
#   - a local API Gateway (HTTP API, payload 2.0) on http://127.0.0.1:8080,
#   - an EventBridge-like schedule that invokes reconcile every 60 s.
# Needs Java 17+, Maven 3.8+ and Node.js 20+. Ctrl-C (or SIGTERM) stops everything it started.
#
#   ./run-local.sh                       build, then run (every tenant charged through provider sim)
#   ./run-local.sh --provider stripe     the default account is Stripe (the simulator's Stripe mode);
#                                        charges then need "paymentMethod", e.g. pm_card_visa
#   ./run-local.sh --tenant-provider merchant-b=stripe   that tenant on Stripe, the others on sim
#   ./run-local.sh --skip-build [opts]   run what was built last
#   ./run-local.sh --help                all options (ports, sandboxes, timeouts, schedule, ...)
set -euo pipefail
cd "$(dirname "$0")"

# shellcheck source=scripts/local-tooling.sh
. scripts/local-tooling.sh

build=1
help=0
args=()
for arg in "$@"; do
  case "$arg" in
    --skip-build) build=0 ;;
    -h|--help) help=1; args+=("$arg") ;;
    *) args+=("$arg") ;;
  esac
done

if [ "$help" = 1 ] && [ -f "$tooling_classpath_file" ]; then
  build=0
fi
tooling_prepare run-local.sh "$build"
classpath=$(tooling_classpath)
main=dev.oncepay.local.LocalRun
java_opts=(-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.util.logging.manager=org.jboss.logmanager.LogManager)

# The local run gets a process group of its own (setsid) so that stopping it can end every
# process it started, whatever happened to the JVM; without setsid (macOS) the JVM's shutdown
# hook and the children's own watchdogs do it.
if command -v setsid >/dev/null 2>&1; then
  own_group=1
  setsid java "${java_opts[@]}" -cp "$classpath" "$main" --app target/function.zip --parent-pid $$ ${args[@]+"${args[@]}"} &
else
  own_group=0
  java "${java_opts[@]}" -cp "$classpath" "$main" --app target/function.zip --parent-pid $$ ${args[@]+"${args[@]}"} &
fi
pid=$!

stop() {
  trap - INT TERM HUP
  kill -TERM "$pid" 2>/dev/null || true
  # The JVM's shutdown hook stops sandboxes, simulator and dynalite (a few seconds at most).
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  finish
}

finish() {
  if [ "$own_group" = 1 ]; then
    kill -KILL -- "-$pid" 2>/dev/null || true
  else
    kill -KILL "$pid" 2>/dev/null || true
  fi
}

trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
trap 'stop; exit 129' HUP

status=0
wait "$pid" || status=$?
finish
exit "$status"
