#!/usr/bin/env bash
# Runs every test of oncepay: installs the pinned DynamoDB-compatible server (dynalite) and the
# other npm test tooling, then one Maven build of the whole reactor through the Maven Wrapper
# (./mvnw: the pinned Maven, downloaded on first use). `verify` packages the functions'
# function.zip before the local run's, the drill's and the infrastructure's tests use it.
# Needs Java 17+ and Node 20+; no Docker, no installed Maven.
set -euo pipefail
cd "$(dirname "$0")"

npm ci --no-audit --no-fund --loglevel=error
./mvnw -B -ntp verify
