#!/usr/bin/env bash
# oncepay on this machine, the way it runs on AWS:
#   - the store on 127.0.0.1:8000: a fault proxy (faults off; steer it with POST /_store/faults, e.g.
#     '{"throttleRate":0.2}' or '{"outage":true}', and POST /_store/reset) in front of dynalite (the
#     DynamoDB API, on a free port, --dynalite-port) with the table created,
#   - the PSP simulator on 127.0.0.1:8090 with both its APIs: the generic PSP (provider sim) and the
#     Stripe mode (provider stripe, /v1/payment_intents); their signed webhooks go to the gateway's
#     /webhooks/sim and /webhooks/stripe,
#   - ElasticMQ (SQS's API) on 127.0.0.1:9324 (--queue-port) with a charge queue and its dead-letter
#     queue per provider account, and the merchant event queue oncepay-events with its own,
#   - a merchant endpoint on 127.0.0.1:9420 (--merchant-port) that verifies and records every tenant's
#     signed events (GET /_merchant/received; POST /_merchant/faults; --no-events: no events at all),
#   - the five functions (charge, webhook, reconcile, charge-worker, event-delivery) from the real
#     oncepay-functions/target/function.zip, each in sandbox JVMs running the Lambda handler under AWS's
#     runtime interface client,
#   - a local API Gateway (HTTP API, payload 2.0) on http://127.0.0.1:8080,
#   - an EventBridge-like schedule that invokes reconcile every 60 s,
#   - an SQS event-source mapping per charge queue that invokes charge-worker with its messages, as
#     Lambda's does (batches, maximum concurrency, partial batch failures; --queue-* options), and
#     one of the event queue that invokes event-delivery (--event-* options).
# Needs Java 17+ and Node.js 20+ (./mvnw brings Maven). Ctrl-C (or SIGTERM) stops everything it started.
#
#   ./run-local.sh                       build, then run (every tenant charged through provider sim)
#   ./run-local.sh --provider stripe     the default account is Stripe (the simulator's Stripe mode);
#                                        charges then need "paymentMethod", e.g. pm_card_visa
#   ./run-local.sh --tenant-provider merchant-b=stripe   that tenant on Stripe, the others on sim
#   ./run-local.sh --tenant-provider merchant-b=stripe2  that tenant on a second Stripe account (own key and signing secret)
#   ./run-local.sh --respond-async merchant-q   that tenant's charges are queued (202) as if it asked Prefer: respond-async
#   ./run-local.sh --skip-build [opts]   run what was built last
#   ./run-local.sh --dev [--debug-port N]   live coding: charge runs in `./mvnw quarkus:dev` (in the
#                                        foreground: its console keys work, e.g. [r] runs the tests),
#                                        the other functions in sandboxes of the built package; a
#                                        saved change is served by the next request; Ctrl-C stops all
#   ./run-local.sh --help                all options (ports, sandboxes, timeouts, schedule, ...)
set -euo pipefail
cd "$(dirname "$0")"

# shellcheck source=scripts/local-tooling.sh
. scripts/local-tooling.sh

build=1
help=0
dev=0
dev_port=8081
debug_port=5005
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-build) build=0 ;;
    --dev) dev=1 ;;
    --dev-port|--debug-port)
      [ $# -ge 2 ] || { echo "run-local.sh: $1 needs a value" >&2; exit 2; }
      if [ "$1" = --dev-port ]; then dev_port=$2; else debug_port=$2; fi
      shift ;;
    --dev-port=*) dev_port=${1#*=} ;;
    --debug-port=*) debug_port=${1#*=} ;;
    -h|--help) help=1; args+=("$1") ;;
    *) args+=("$1") ;;
  esac
  shift
done

if [ "$help" = 1 ] && [ -f oncepay-local/target/runtime.classpath ]; then
  build=0
fi
tooling_prepare run-local.sh oncepay-local "$build"
# quarkus:dev recompiles oncepay-functions only: the local run's own JVM runs from oncepay-local's
# classes and jars, so a save changes the function, never the gateway under it.
classpath=$(tooling_classpath oncepay-local)
main=dev.oncepay.local.LocalRun
dev_env=oncepay-functions/target/dev-mode/charge.env
if [ "$dev" = 1 ]; then
  rm -rf oncepay-functions/target/dev-mode
  args+=(--dev-port "$dev_port" --dev-env "$dev_env")
fi
java_opts=(-Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1)

# The local run gets a process group of its own (setsid) so that stopping it can end every
# process it started, whatever happened to the JVM; without setsid (macOS) the JVM's shutdown
# hook and the children's own watchdogs do it.
if command -v setsid >/dev/null 2>&1; then
  own_group=1
  setsid java "${java_opts[@]}" -cp "$classpath" "$main" --app oncepay-functions/target/function.zip --parent-pid $$ ${args[@]+"${args[@]}"} &
else
  own_group=0
  java "${java_opts[@]}" -cp "$classpath" "$main" --app oncepay-functions/target/function.zip --parent-pid $$ ${args[@]+"${args[@]}"} &
fi
pid=$!

stop() {
  trap - INT TERM HUP
  if [ -n "${dev_pid:-}" ]; then
    # Maven's quarkus:dev stops its dev-mode JVM on SIGTERM.
    kill -TERM "$dev_pid" 2>/dev/null || true
    wait "$dev_pid" 2>/dev/null || true
  fi
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

if [ "$dev" = 1 ]; then
  # The local run writes charge's environment (store, simulator, accounts) once its store is up.
  while [ ! -f "$dev_env" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      status=0
      wait "$pid" || status=$?
      exit "$status"
    fi
    sleep 0.2
  done
  while IFS= read -r line; do
    export "$line"
  done < "$dev_env"
  # On this terminal (its console keys work: [r] tests, [s] restart, [q] quit), but as a job of this
  # script, so that Ctrl-C or SIGTERM reaches the traps above at once, which stop Quarkus and then
  # the local run; [q] ends Quarkus, and then the local run is stopped here.
  ./mvnw quarkus:dev -pl oncepay-functions -am "-Dquarkus.lambda.mock-event-server.dev-port=$dev_port" "-Ddebug=$debug_port" 0<&0 &
  dev_pid=$!
  status=0
  wait "$dev_pid" || status=$?
  dev_pid=
  stop
  exit "$status"
fi

status=0
wait "$pid" || status=$?
finish
exit "$status"
