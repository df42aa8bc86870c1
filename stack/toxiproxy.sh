#!/usr/bin/env bash
# Toxiproxy in front of each Kafka node's client listener (STACK_TOXIPROXY=1, see up.sh): the
# brokers advertise the proxies, so every client connection can be slowed, cut or reset per
# broker while the brokers talk to each other directly. Built once with `go install` from the Go
# module proxy into .stack/bin (needs Go 1.22+).
#   bash stack/toxiproxy.sh start   # builds if needed, starts the server, creates kafka-1..N
#   bash stack/toxiproxy.sh reset   # removes every toxic, enables every proxy
# The API (http://127.0.0.1:$TOXIPROXY_PORT) is Toxiproxy's own: see its README for toxics.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOXIPROXY_VERSION=v2.12.0
BIN="$STACK_DIR/bin/toxiproxy-server-$TOXIPROXY_VERSION"
API="http://127.0.0.1:$TOXIPROXY_PORT"

build() {
  [[ -x "$BIN" ]] && return 0
  command -v go >/dev/null 2>&1 || die "go not found: Toxiproxy is built with go install (Debian: apt-get install golang-go)"
  log "building Toxiproxy $TOXIPROXY_VERSION with go install..."
  local tmp
  tmp="$(mktemp -d)"
  GOBIN="$tmp" go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION" >&2
  mkdir -p "$(dirname "$BIN")"
  mv "$tmp/server" "$BIN"
  rm -rf "$tmp"
}

api() { curl -fsS --max-time 5 "$@"; }

start() {
  build
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  if ! pid_alive toxiproxy; then
    port_in_use "$TOXIPROXY_PORT" && die "cannot start toxiproxy: 127.0.0.1:$TOXIPROXY_PORT is taken (TOXIPROXY_PORT)"
    setsid bash -c 'echo $$ >"$0"; exec "$@"' "$RUN_DIR/toxiproxy.pid" "$BIN" -host 127.0.0.1 -port "$TOXIPROXY_PORT" \
      </dev/null >"$LOG_DIR/toxiproxy.log" 2>&1 9>&- &
    local i
    for i in {1..100}; do api "$API/version" >/dev/null 2>&1 && break; sleep 0.1; done
    api "$API/version" >/dev/null || die "toxiproxy did not answer on $API (log: $LOG_DIR/toxiproxy.log)"
  fi
  local node listen
  for ((node = 1; node <= STACK_BROKERS; node++)); do
    listen="$(node_port "$KAFKA_PORT" "$node")"
    api -X POST "$API/populate" -H 'content-type: application/json' \
      -d "[{\"name\":\"kafka-$node\",\"listen\":\"127.0.0.1:$listen\",\"upstream\":\"127.0.0.1:$((listen + 4))\",\"enabled\":true}]" >/dev/null
  done
  log "toxiproxy ready on $API (kafka-1..$STACK_BROKERS)"
}

case "${1:-}" in
  start) start ;;
  reset) api -X POST "$API/reset" >/dev/null ;;
  *) die "usage: stack/toxiproxy.sh start|reset" ;;
esac
