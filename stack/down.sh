#!/usr/bin/env bash
# Stops what stack/up.sh started (pid files in .stack/run/) and removes the Kafka data, so the
# next up starts from empty topics. STACK_KEEP_DATA=1 keeps .stack/data/kafka.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STOP_TIMEOUT_S="${STACK_STOP_TIMEOUT_S:-30}"

take_lock

stop() {
  local name="$1" pid deadline
  if ! pid_alive "$name"; then
    rm -f "$RUN_DIR/$name.pid"
    return 0
  fi
  pid="$(pid_of "$name")"
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$(( $(date +%s) + STOP_TIMEOUT_S ))
  while running "$pid"; do
    if (( $(date +%s) > deadline )); then
      log "$name did not stop within ${STOP_TIMEOUT_S}s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    sleep 0.1
  done
  rm -f "$RUN_DIR/$name.pid"
}

# Stop in parallel; each stop waits for its own process to exit.
stop registry &
stop kafka &
stop kafka-2 &
stop kafka-3 &
stop redis &
stop toxiproxy &
wait
rm -f "$RUN_DIR/brokers"

if [[ "${STACK_KEEP_DATA:-0}" != 1 ]]; then
  rm -rf "$DATA_DIR"/kafka "$DATA_DIR"/kafka-[23] "$DATA_DIR/redis"
fi
log "stack stopped"
