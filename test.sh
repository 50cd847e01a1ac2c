#!/usr/bin/env bash
# Runs every test of oncepay: installs the pinned DynamoDB-compatible server (dynalite) and the
# other npm test tooling, then the Maven suites through the Maven Wrapper (./mvnw: the pinned Maven,
# downloaded on first use). Needs Java 17+ and Node 20+; no Docker, no installed Maven.
set -euo pipefail
cd "$(dirname "$0")"

npm ci --no-audit --no-fund --loglevel=error
./mvnw -B -ntp test
if [ -f infra/pom.xml ]; then
  ./mvnw -B -ntp -f infra/pom.xml test
fi
