#!/usr/bin/env bash
# Runs every test of oncepay: installs the pinned DynamoDB-compatible server (dynalite) and the
# other npm test tooling, then the Maven suites. Needs Java 17+, Maven 3.8+, Node 20+; no Docker.
set -euo pipefail
cd "$(dirname "$0")"

npm ci --no-audit --no-fund --loglevel=error
mvn -B -ntp test
if [ -f infra/pom.xml ]; then
  mvn -B -ntp -f infra/pom.xml test
fi
