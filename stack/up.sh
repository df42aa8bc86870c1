#!/usr/bin/env bash
# Starts the local stack (Kafka KRaft single node, Apicurio Registry, Redis) bound to 127.0.0.1.
# Idempotent: what is already running (pid files in .stack/run/) is left alone.
# See stack/README.md.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=secure.sh
source "$(dirname "${BASH_SOURCE[0]}")/secure.sh"

T0=$(now_ms)
READY_TIMEOUT_S="${STACK_READY_TIMEOUT_S:-120}"

take_lock
mkdir -p "$LOG_DIR" "$DATA_DIR"

# --- prerequisites ---------------------------------------------------------------------------

require_java
bash "$STACK_SRC/fetch.sh"

ensure_redis() {
  command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1 && return 0
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    log "installing redis-server with apt-get..."
    # RUNLEVEL=1 keeps the package's init script from starting a system-wide redis on 6379.
    apt-get -o DPkg::Lock::Timeout=300 update -qq
    RUNLEVEL=1 DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
      --no-install-recommends redis-server >/dev/null
  else
    die "redis-server and redis-cli are missing: install them (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or point REDIS_URL at a Redis"
  fi
}
ensure_redis

# --- helpers ---------------------------------------------------------------------------------

# wait_for NAME CHECK_FUNCTION: polls until CHECK succeeds, the process dies, or the timeout hits.
wait_for() {
  local name="$1" check="$2" deadline=$(( $(date +%s) + READY_TIMEOUT_S ))
  until "$check"; do
    if ! pid_alive "$name"; then
      tail -n 40 "$LOG_DIR/$name.log" >&2 || true
      die "$name exited during startup (log: $LOG_DIR/$name.log)"
    fi
    if (( $(date +%s) > deadline )); then
      tail -n 40 "$LOG_DIR/$name.log" >&2 || true
      die "$name not ready after ${READY_TIMEOUT_S}s (log: $LOG_DIR/$name.log)"
    fi
    sleep 0.2
  done
  log "$name ready after $(( $(now_ms) - T0 ))ms"
}

check_port_free() {
  local name="$1" port="$2"
  if port_in_use "$port"; then
    die "cannot start $name: 127.0.0.1:$port is already taken by another process ($(ss -ltnpH "sport = :$port" 2>/dev/null | grep -o 'users:.*' | head -1)). Stop it or choose another port (see stack/README.md)."
  fi
}

rotate_log() { [[ -f "$LOG_DIR/$1.log" ]] && mv -f "$LOG_DIR/$1.log" "$LOG_DIR/$1.log.1"; return 0; }

# Starts a detached process (own session: Ctrl-C in the caller's terminal or the end of a test
# run does not kill it) and records its pid.
spawn() {
  local name="$1"; shift
  rotate_log "$name"
  rm -f "$RUN_DIR/$name.pid"
  # The child writes its own pid before exec'ing, so the pid file is right even if setsid forks.
  # shellcheck disable=SC2016 # expanded by the child shell
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$RUN_DIR/$name.pid" "$@" </dev/null >"$LOG_DIR/$name.log" 2>&1 9>&- &
  local _
  for _ in {1..50}; do [[ -s "$RUN_DIR/$name.pid" ]] && return 0; sleep 0.02; done
  die "could not start $name"
}

# Application class-data sharing: the first run of a JVM records the classes it loaded into
# .stack/cds/NAME.jsa when it exits (down.sh stops it gracefully); later starts map that archive.
# A stale or unusable archive is ignored by the JVM (-Xshare:auto). STACK_CDS=0 turns it off.
cds_flags() { # NAME -> sets CDS_FLAGS
  CDS_FLAGS=()
  [[ "${STACK_CDS:-1}" == 1 ]] || return 0
  local jsa="$STACK_DIR/cds/$1.jsa"
  mkdir -p "$STACK_DIR/cds"
  if [[ -s "$jsa" ]]; then
    CDS_FLAGS=("-XX:SharedArchiveFile=$jsa")
  else
    CDS_FLAGS=("-XX:ArchiveClassesAtExit=$jsa")
  fi
  CDS_FLAGS+=(-Xlog:cds=off -Xlog:cds+dynamic=off)
}

# --- Kafka -----------------------------------------------------------------------------------

KAFKA_HOME="$STACK_DIR/kafka"
KAFKA_DATA="$DATA_DIR/kafka"
KAFKA_VERSION="$(basename "$(compgen -G "$KAFKA_HOME/libs/kafka_2.13-*.jar" | head -1)" .jar)"
KAFKA_VERSION="${KAFKA_VERSION#kafka_2.13-}"
# The SCRAM client lives in the formatted storage: a template per Kafka version and password.
SCRAM_PASSWORD="$(secure_password)"
KAFKA_TEMPLATE="$KAFKA_HOME/formatted-$KAFKA_VERSION-scram-$(printf %s "$SCRAM_PASSWORD" | sha256sum | cut -c1-12)"

kafka_java() {
  java "${STACK_JVM_FLAGS[@]}" \
    -Dlog4j2.configurationFile="$STACK_SRC/kafka-log4j2.properties" -Dkafka.logs.dir="$LOG_DIR" \
    -cp "$KAFKA_HOME/libs/*" "$@"
}

# One node (STACK_BROKERS=1, the default) or a three-node cluster (STACK_BROKERS=3): combined
# broker + controller nodes, replication factor 3 and min.insync.replicas=2 for every topic,
# __consumer_offsets and __transaction_state included. Node N's ports are the defaults plus
# 10 * (N - 1): clients 9092/9102/9112, controllers 9093/9103/9113, SASL_SSL 9094/9104/9114; in a
# cluster the brokers talk to each other on 9095/9105/9115. STACK_TOXIPROXY=1 puts a Toxiproxy
# (stack/toxiproxy.sh) on each node's client port, the node itself listening on port + 4
# (9096/9106/9116) and advertising the proxy, so faults can be put between clients and one broker
# while inter-broker traffic stays direct.
node_name() { if (( $1 == 1 )); then echo kafka; else echo "kafka-$1"; fi; }
node_client_port() { node_port "$KAFKA_PORT" "$1"; }
# Where the node itself accepts clients: its client port, or behind its proxy.
node_listen_port() {
  if [[ "$STACK_TOXIPROXY" == 1 ]]; then echo $(( $(node_client_port "$1") + 4 )); else node_client_port "$1"; fi
}

write_kafka_config() { # NODE DATA_DIRECTORY OUTPUT_FILE
  local node="$1" data="$2" out="$3" rf=1 isr=1 voters="" n
  for ((n = 1; n <= STACK_BROKERS; n++)); do
    voters+="${voters:+,}$n@127.0.0.1:$(node_port "$KAFKA_CONTROLLER_PORT" "$n")"
  done
  local client secure controller internal
  client="$(node_client_port "$node")"
  secure="$(node_port "$KAFKA_SECURE_PORT" "$node")"
  controller="$(node_port "$KAFKA_CONTROLLER_PORT" "$node")"
  local listeners="PLAINTEXT://127.0.0.1:$(node_listen_port "$node"),CONTROLLER://127.0.0.1:$controller,SECURE://127.0.0.1:$secure"
  local advertised="PLAINTEXT://127.0.0.1:$client,SECURE://127.0.0.1:$secure"
  local inter=PLAINTEXT protocols="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SECURE:SASL_SSL"
  if (( STACK_BROKERS > 1 )); then
    rf=3 isr=2
    internal="$(( client + 3 ))"
    listeners+=",INTERNAL://127.0.0.1:$internal"
    advertised+=",INTERNAL://127.0.0.1:$internal"
    inter=INTERNAL protocols+=",INTERNAL:PLAINTEXT"
  fi
  cat >"$out" <<EOF
# generated by stack/up.sh (node $node of $STACK_BROKERS)
process.roles=broker,controller
node.id=$node
controller.quorum.voters=$voters
listeners=$listeners
advertised.listeners=$advertised
controller.listener.names=CONTROLLER
inter.broker.listener.name=$inter
listener.security.protocol.map=$protocols
$(secure_listener_config)
log.dirs=$data
$(kafka_broker_settings "$rf" "$isr")
EOF
}

# ApiVersions v0 request over bash's /dev/tcp; ready when the broker answers with error_code 0.
kafka_ready_node() { # NODE
  # shellcheck disable=SC2016 # expanded by the child shell
  timeout 3 bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf "\x00\x00\x00\x0f\x00\x12\x00\x00\x00\x00\x00\x01\x00\x05probe" >&3
    resp="$(head -c 10 <&3 | od -An -tx1 | tr -d " \n")"
    [[ "${resp:8:12}" == 000000010000 ]]
  ' _ "$(node_listen_port "$1")" 2>/dev/null || return 1
  grep -q 'Kafka Server started' "$LOG_DIR/$(node_name "$1").log"
}
kafka_ready() { kafka_ready_node 1; }
kafka_2_ready() { kafka_ready_node 2; }
kafka_3_ready() { kafka_ready_node 3; }

# Formatting costs a JVM start: each node's storage is formatted once per Kafka version (and
# SCRAM password, and cluster shape) into a template, and copied from there after.
start_kafka_node() { # NODE
  local node="$1" name template data config shape=""
  name="$(node_name "$node")"
  if (( STACK_BROKERS > 1 )); then shape="-cluster$STACK_BROKERS-node$node"; fi
  template="$KAFKA_TEMPLATE$shape"
  data="$DATA_DIR/$name"
  config="$KAFKA_HOME/server$shape.properties"
  if pid_alive "$name"; then
    log "$name already running (pid $(pid_of "$name"))"
    return 0
  fi
  check_port_free "$name" "$(node_listen_port "$node")"
  check_port_free "$name-controller" "$(node_port "$KAFKA_CONTROLLER_PORT" "$node")"
  check_port_free "$name-secure" "$(node_port "$KAFKA_SECURE_PORT" "$node")"
  if [[ ! -f "$template/meta.properties" ]]; then
    log "formatting Kafka storage template for node $node (cluster id $KAFKA_CLUSTER_ID, SCRAM user $KAFKA_SCRAM_USER)"
    rm -rf "$template" && mkdir -p "$template"
    write_kafka_config "$node" "$template" "$KAFKA_HOME/format$shape.properties"
    mapfile -t scram_flags < <(secure_scram_format_flags "$SCRAM_PASSWORD")
    kafka_java kafka.tools.StorageTool format -t "$KAFKA_CLUSTER_ID" -c "$KAFKA_HOME/format$shape.properties" \
      "${scram_flags[@]}" >"$LOG_DIR/$name-format.log" 2>&1 \
      || { cat "$LOG_DIR/$name-format.log" >&2; die "kafka storage format failed"; }
  fi
  # Data kept (STACK_KEEP_DATA=1) from another template lacks the SCRAM user: start afresh.
  if [[ "$(cat "$DATA_DIR/$name-template" 2>/dev/null)" != "$(basename "$template")" ]]; then
    rm -rf "$data"
  fi
  if [[ ! -f "$data/meta.properties" ]]; then
    rm -rf "$data"
    cp -a "$template" "$data"
    basename "$template" >"$DATA_DIR/$name-template"
  fi
  write_kafka_config "$node" "$data" "$config"
  # One JVM records the class-data-sharing archive; the other nodes map it once it exists.
  cds_flags "kafka-$KAFKA_VERSION"
  if (( node > 1 )) && [[ "${CDS_FLAGS[0]:-}" == -XX:ArchiveClassesAtExit=* ]]; then CDS_FLAGS=(); fi
  # shellcheck disable=SC2086 # KAFKA_HEAP holds several flags
  spawn "$name" java $KAFKA_HEAP "${STACK_JVM_FLAGS[@]}" "${CDS_FLAGS[@]}" \
    -Dlog4j2.configurationFile="$STACK_SRC/kafka-log4j2.properties" -Dkafka.logs.dir="$LOG_DIR" \
    -Dkafka.stack.node="$name" -cp "$KAFKA_HOME/libs/*" kafka.Kafka "$config"
  log "$name starting (pid $(pid_of "$name"))"
}

# A stack started with another number of nodes cannot be grown or shrunk in place.
running_brokers="$(cat "$RUN_DIR/brokers" 2>/dev/null || echo 1)"
if pid_alive kafka && [[ "$running_brokers" != "$STACK_BROKERS" ]]; then
  die "Kafka runs with $running_brokers node(s) and STACK_BROKERS asks for $STACK_BROKERS: run bash stack/down.sh first"
fi
certificates_made=0
for ((node = 1; node <= STACK_BROKERS; node++)); do
  if ! pid_alive "$(node_name "$node")" && ((certificates_made == 0)); then
    secure_certificates
    certificates_made=1
  fi
  start_kafka_node "$node"
done
echo "$STACK_BROKERS" >"$RUN_DIR/brokers"
if [[ "$STACK_TOXIPROXY" == 1 ]]; then bash "$STACK_SRC/toxiproxy.sh" start; fi

# --- Apicurio Registry -------------------------------------------------------------------------

registry_ready() {
  [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 \
    "http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7/subjects")" == 200 ]]
}

# 3.0.x ships a legacy Quarkus jar (*-runner.jar + lib/), later releases a fast-jar (quarkus-run.jar).
REGISTRY_JAR="$(compgen -G "$STACK_DIR/apicurio/quarkus-run.jar" || compgen -G "$STACK_DIR/apicurio/*-runner.jar" | head -1)"

if pid_alive registry; then
  log "registry already running (pid $(pid_of registry))"
else
  check_port_free registry "$REGISTRY_PORT"
  # In-memory storage: the app build defaults to apicurio.storage.kind=sql with an H2 mem: URL.
  # The management interface exists from Apicurio 3.1 on (3.0.x serves /health on the main port).
  cds_flags "$(basename "$REGISTRY_JAR" .jar)"
  # shellcheck disable=SC2086 # REGISTRY_HEAP holds several flags
  spawn registry java $REGISTRY_HEAP "${STACK_JVM_FLAGS[@]}" "${CDS_FLAGS[@]}" \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$REGISTRY_PORT" \
    -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$REGISTRY_MANAGEMENT_PORT" \
    -Dquarkus.http.access-log.enabled=false \
    -Dapicurio.datasource.jdbc.initial-size=2 -Dapicurio.datasource.jdbc.min-size=2 \
    -Dapicurio.storage.snapshot.location="$DATA_DIR" \
    -jar "$REGISTRY_JAR"
  log "registry starting (pid $(pid_of registry))"
fi

# --- Redis -------------------------------------------------------------------------------------

redis_ready() { [[ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" == PONG ]]; }

if pid_alive redis; then
  log "redis already running (pid $(pid_of redis))"
else
  check_port_free redis "$REDIS_PORT"
  mkdir -p "$DATA_DIR/redis"
  # Foreground process in its own session (not --daemonize): spawn records the real pid.
  spawn redis redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --protected-mode yes \
    --save '' --appendonly yes --appendfsync everysec --dir "$DATA_DIR/redis" \
    --daemonize no --loglevel notice
  log "redis starting (pid $(pid_of redis))"
fi

# --- readiness ---------------------------------------------------------------------------------

wait_for redis redis_ready
wait_for kafka kafka_ready
((STACK_BROKERS < 2)) || wait_for kafka-2 kafka_2_ready
((STACK_BROKERS < 3)) || wait_for kafka-3 kafka_3_ready
wait_for registry registry_ready

log "stack ready in $(( $(now_ms) - T0 ))ms (logs: $LOG_DIR)"
brokers="127.0.0.1:$KAFKA_PORT"
for ((node = 2; node <= STACK_BROKERS; node++)); do brokers+=",127.0.0.1:$(node_client_port "$node")"; done
echo "KAFKA_BROKERS=$brokers"
echo "SCHEMA_REGISTRY_URL=http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7"
echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
node1_config="$KAFKA_HOME/server.properties"
if ((STACK_BROKERS > 1)); then node1_config="$KAFKA_HOME/server-cluster$STACK_BROKERS-node1.properties"; fi
if secure_listener_running "$node1_config"; then
  secure_brokers="127.0.0.1:$KAFKA_SECURE_PORT"
  for ((node = 2; node <= STACK_BROKERS; node++)); do secure_brokers+=",127.0.0.1:$(node_port "$KAFKA_SECURE_PORT" "$node")"; done
  echo "KAFKA_SECURE_BROKERS=$secure_brokers"
  echo "KAFKA_SECURE_CA_FILE=$SECURE_CA_FILE"
  echo "KAFKA_SECURE_USERNAME=$KAFKA_SCRAM_USER"
  echo "KAFKA_SECURE_PASSWORD_FILE=$SECURE_PASSWORD_FILE"
else
  log "kafka runs without the SASL_SSL listener on port $KAFKA_SECURE_PORT (started by an older stack/up.sh, or with another KAFKA_SECURE_PORT): npm run stack:down && npm run stack:up adds it"
fi
