#!/usr/bin/env bash
# Synthesizes the oncepay stack into infra/cdk.out (git-ignored), offline: no AWS account or
# credentials needed. Extra arguments go to `cdk synth`, e.g.
#   infra/synth.sh -c oncepay:runtime=jvm
#   infra/synth.sh -c oncepay:functionZip=/path/to/function.zip
# Without oncepay-functions/target/function.zip (no build yet) it synthesizes with placeholder code, and with a JVM
# function.zip (what `./mvnw package` leaves) the JVM variant, and says so. To deploy, run
# `npx cdk deploy` from infra/ after ./native-build.sh (see infra/README.md).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
cdk="$root/node_modules/.bin/cdk"

export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1
export CDK_DISABLE_CLI_TELEMETRY=true

if [[ ! -x "$cdk" ]]; then
  echo "synth.sh: the CDK CLI is not installed: run 'npm ci' in $root (package.json pins aws-cdk)" >&2
  exit 1
fi
[[ -x "$root/mvnw" ]] || { echo "synth.sh: $root/mvnw (the Maven Wrapper) is missing; the CDK app is a Maven build" >&2; exit 1; }

args=()
zip="$root/oncepay-functions/target/function.zip"
if [[ " $* " != *"oncepay:functionZip="* ]]; then
  if [[ ! -f "$zip" ]]; then
    echo "synth.sh: no oncepay-functions/target/function.zip: synthesizing with placeholder code (build it with ./native-build.sh)" >&2
    args+=(-c oncepay:placeholderCode=true)
  elif [[ " $* " != *"oncepay:runtime="* ]] && ! (unzip -Z1 "$zip" 2>/dev/null || jar tf "$zip") | grep -qx bootstrap; then
    # `./mvnw package` leaves a JVM function.zip: synthesize what is built.
    echo "synth.sh: oncepay-functions/target/function.zip is a JVM build: synthesizing the JVM variant (-c oncepay:runtime=jvm)" >&2
    args+=(-c oncepay:runtime=jvm)
  fi
fi

cd "$here"
rm -rf cdk.out
"$cdk" synth --quiet --output cdk.out ${args[@]+"${args[@]}"} "$@"
echo "synth.sh: wrote $(ls cdk.out/*.template.json | sed "s|^|infra/|" | tr '\n' ' ')"
