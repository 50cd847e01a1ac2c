#!/usr/bin/env bash
# Tries the operator's resolution from the outside, as a new user would, against a local run of the
# given package: a charge the provider executed whose answer was lost while lookups lag, resolved
# `failed` (a proof of no charge is needed: 409 no-charge-unproven, the key still replays 202); a
# stray 1-cent charge named to settle a 4300 payment (409 charge-mismatch). Run it against an older
# function.zip to see what it answered then.
#   scripts/resolve-walk.sh [function.zip] [label]     (ports 18080, 18090, 18000, 19324)
set -u
cd "$(dirname "$0")/.."
APP=${1:-oncepay-functions/target/function.zip}; L=${2:-walk}; A=localhost:18080; S=localhost:18090
./run-local.sh --skip-build --app "$APP" --api-port 18080 --sim-port 18090 --dynamo-port 18000 --queue-port 19324 --sandboxes charge=1,webhook=0,reconcile=1,charge-worker=0 --reconcile-every off > target/resolve-walk-$L.log 2>&1 &
RUN=$!
for i in $(seq 1 120); do curl -s -o /dev/null -w '%{http_code}' $A/payments/pay_x -H 'X-Tenant-Id: merchant-a' 2>/dev/null | grep -q 404 && break; sleep 1; done
echo "== $L: a charge the provider executed, its answer lost, lookups lagging 1 h (no webhook, no sweep)"
curl -s -X POST $S/_sim/faults -d '{"commitThenTimeoutRate":1.0,"commitThenTimeoutMs":8000,"lookupLagMs":3600000}'; echo
R=$(curl -s -X POST $A/payments -H 'Idempotency-Key: walk-k1' -H 'X-Tenant-Id: merchant-a' -H 'Content-Type: application/json' -d '{"amount":4300,"currency":"EUR","reference":"order_w1"}' -w '\n%{http_code}')
echo "POST /payments walk-k1 -> $(echo "$R" | tail -1) $(echo "$R" | head -1 | cut -c1-160)"
ID=$(echo "$R" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
curl -s -X POST $S/_sim/faults -d '{"lookupLagMs":3600000}' > /dev/null
echo "ledger: $(curl -s $S/_sim/ledger | cut -c1-200)"
R=$(curl -s -X POST $A/admin/payments/$ID/resolve -H 'X-Operator-Id: alice' -H 'Idempotency-Key: walk-r1' -H 'Content-Type: application/json' -d '{"status":"failed","reason":"provider has no charge"}' -w '\n%{http_code}')
echo "resolve failed -> $(echo "$R" | tail -1) $(echo "$R" | head -1 | cut -c1-220)"
R=$(curl -s -X POST $A/payments -H 'Idempotency-Key: walk-k1' -H 'X-Tenant-Id: merchant-a' -H 'Content-Type: application/json' -d '{"amount":4300,"currency":"EUR","reference":"order_w1"}' -w '\n%{http_code}')
echo "replay walk-k1 -> $(echo "$R" | tail -1) $(echo "$R" | head -1 | cut -c1-220)"
echo "== $L: a stray 1-cent charge named to settle a 4300 payment"
curl -s -X POST $S/_sim/faults -d '{"serverErrorRate":1.0,"commitThenTimeoutRate":0.0}' > /dev/null
R=$(curl -s -X POST $A/payments -H 'Idempotency-Key: walk-k2' -H 'X-Tenant-Id: merchant-a' -H 'Content-Type: application/json' -d '{"amount":4300,"currency":"EUR","reference":"order_w2"}' -w '\n%{http_code}')
echo "POST /payments walk-k2 (provider 5xx) -> $(echo "$R" | tail -1)"
ID2=$(echo "$R" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
curl -s -X POST $S/_sim/faults -d '{"serverErrorRate":0.0,"lookupLagMs":0}' > /dev/null
R=$(curl -s -X POST $S/v1/charges -H 'Idempotency-Key: stray-1' -H 'Content-Type: application/json' -H 'Authorization: Bearer sk_sim' -d "{\"amount\":1,\"currency\":\"EUR\",\"reference\":\"$ID2\"}")
CH=$(echo "$R" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])' 2>/dev/null || echo "?($R)")
echo "stray charge at the provider: $CH (amount 1)"
R=$(curl -s -X POST $A/admin/payments/$ID2/resolve -H 'X-Operator-Id: alice' -H 'Idempotency-Key: walk-r2' -H 'Content-Type: application/json' -d "{\"status\":\"succeeded\",\"providerPaymentId\":\"$CH\",\"reason\":\"found it\"}" -w '\n%{http_code}')
echo "resolve succeeded with $CH -> $(echo "$R" | tail -1) $(echo "$R" | head -1 | cut -c1-220)"
echo "GET payment -> $(curl -s $A/payments/$ID2 -H 'X-Tenant-Id: merchant-a' | cut -c1-120)"
kill $RUN; wait $RUN 2>/dev/null
pkill -f 'api-port 18080' 2>/dev/null
