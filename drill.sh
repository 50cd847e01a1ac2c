#!/usr/bin/env bash
# The chaos drill: starts the local run (dynalite behind the store fault proxy, PSP
# simulator, the three functions in sandbox JVMs, API gateway, reconcile every few seconds) on free
# ports, drives N orders from M clients (some of them shoppers who pay again under a fresh key after
# a 5xx or a timeout, some double-clicking under two keys; a 409 order refusal is followed to the
# order's payment) through the profile's provider or store faults, outages and SIGKILLed sandboxes,
# lets everything settle, and checks the simulator's ledger and every charge request that reached it
# against oncepay's table and every client's last answer. Prints `double charges per order: n`
# (orders charged more than once, each with its cause), `orphan charges: n` (charge requests nobody waited for),
# `lost: n`, `stuck: n`, `disagreeing answers: n` and the answers by status; exits non-zero if any
# count is above 0. Wallet traffic runs beside the payments through the same faults (credits, racing
# debits, overdrafts, duplicate keys, shoppers under fresh keys); `wallet mismatches: n` counts
# wallets whose balance is not the sum of their entries, operations applied twice, balances below
# zero, 201s without their entry and 402s with one (API and table), and fails the drill above 0.
# A share of the orders (--async-share F, default 0.3) is paid with Prefer: respond-async: answered
# 202 once the charge is on its account's queue (ElasticMQ), charged by the charge-worker sandboxes
# (--queue-concurrency per queue, killed like the others), polled to the outcome; `async 503
# provider-at-capacity/unavailable: n` counts queued requests refused for the provider's state and
# fails the drill above 0, and the summary shows the 202's latency, the time from it to the
# outcome and each queue's deepest backlog.
# Writes target/drill/report.html and summary.txt.
#
# With --provider stripe every tenant is charged through the simulator's Stripe mode: the charges
# carry Stripe's test cards (mostly pm_card_visa, some declining, some pm_card_authenticationRequired
# whose shopper approves, refuses or abandons 3-D Secure); the verdict is the same, and a payment
# left awaiting its customer (nothing charged) is counted apart as `awaiting customer: n`.
#
# With --slow-account D tenant merchant-c pays through a second provider account (the simulator's
# Stripe API, pm_card_visa) whose every call takes D longer during the workload (the simulator's
# stripeLatencyMs); the summary shows latency per account, so the healthy account's p95 can be
# compared with and without the other slow (--slow-account 0). Every summary also reports the
# breaker transitions and BreakerOpen metric from the functions' own output, and the charge requests
# and lookups the simulator itself counted (/_sim/stats) during the provider outage.
#
# With --bench (or --bench-quick: every figure once, small counts) it runs the benchmark
# (docs/benchmark.md) instead: cold start to first answer per function, a killed sandbox's
# replacement, the latency and throughput oncepay adds over direct provider calls (early: new sandboxes
# after 2 charges, and warm: after 300), DynamoDB requests
# and provider calls per charge, RSS per sandbox, DynamoDB requests per wallet operation, and the
# hot wallet: debits per second on one wallet and on 8 (--hot-wallet-duration); a table on the
# screen and every figure in target/bench/bench.json.
#
#   ./drill.sh --bench [--cold-repeats N] [--latency-requests N] [--throughput-duration D] ...
#   ./drill.sh [--skip-build] [--provider sim|stripe] [--payments N] [--clients M] [--seed S]
#              [--profile hostile|hostile-provider|store-faults|all|mild|none] [--slow-account D]
#              [--async-share F] [--queue-concurrency N] ...
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
    -h|--help) [ -f oncepay-drill/target/runtime.classpath ] && build=0; args+=("$arg") ;;
    *) args+=("$arg") ;;
  esac
done

tooling_prepare drill.sh oncepay-drill "$build"
classpath=$(tooling_classpath oncepay-drill)
# The drill JVM runs the clients and the verdict; the local run (gateway, simulator, store fault
# proxy, supervisor) is a JVM of its own (LocalRunChild), and so is each sandbox. Ctrl-C: the JVM's
# shutdown stops the children, and each child also exits when its stdin (a pipe from this JVM) closes.
exec java -Xmx768m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
  -Djava.util.logging.manager=org.jboss.logmanager.LogManager \
  -cp "$classpath" dev.oncepay.drill.Drill ${args[@]+"${args[@]}"}
