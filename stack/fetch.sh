#!/usr/bin/env bash
# Resolves the Kafka classpath and the Apicurio Registry app into .stack/ with Maven (stack/pom.xml).
# Idempotent: Maven is not even started when the current pom was already resolved.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

pom="$STACK_SRC/pom.xml"
stamp="$STACK_DIR/fetched.sha256"
want="$(sha256sum "$pom" | cut -d' ' -f1)"

if [[ -f "$stamp" && "$(<"$stamp")" == "$want" && -d "$STACK_DIR/apicurio/lib" ]] \
  && compgen -G "$STACK_DIR/kafka/libs/kafka_2.13-*.jar" >/dev/null; then
  exit 0
fi

command -v mvn >/dev/null 2>&1 || die "mvn not found: install Maven 3.8+ (Debian: apt-get install maven)"
require_java
mkdir -p "$STACK_DIR"
if pid_alive kafka || pid_alive registry; then
  die "stack/pom.xml changed while the stack runs from the old binaries: run bash stack/down.sh first"
fi
# A changed pom may change versions: start from scratch (the Maven repository keeps the downloads;
# the class-data-sharing archives are only valid for the jars they were recorded with).
rm -rf "$STACK_DIR/kafka/libs" "$STACK_DIR/apicurio" "$STACK_DIR/markers" "$STACK_DIR/cds"
log "fetching Kafka and Apicurio Registry with Maven (~170 MB on a fresh machine)..."
t0=$(now_ms)
# (sed: Maven 3.8 prints colour resets even in batch mode)
mvn -B -q -f "$pom" -Dstyle.color=never -Dstack.dir="$STACK_DIR" package 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2
echo "$want" >"$stamp"
log "fetched in $(( ($(now_ms) - t0) / 1000 ))s"
