# shellcheck shell=bash
# Shared by stack/fetch.sh, stack/up.sh and stack/down.sh. Sourced, never run.
# shellcheck disable=SC2034 # the variables are used by the scripts that source this file

STACK_SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$STACK_SRC/.." && pwd)"
STACK_DIR="${STACK_DIR:-$ROOT/.stack}"
RUN_DIR="$STACK_DIR/run"
LOG_DIR="$STACK_DIR/logs"
DATA_DIR="$STACK_DIR/data"

KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
KAFKA_SECURE_PORT="${KAFKA_SECURE_PORT:-9094}"
REGISTRY_PORT="${REGISTRY_PORT:-8081}"
REGISTRY_MANAGEMENT_PORT="${REGISTRY_MANAGEMENT_PORT:-8082}"
REDIS_PORT="${REDIS_PORT:-6379}"
# 1 (one combined node) or 3 (a replicated cluster); see up.sh.
STACK_BROKERS="${STACK_BROKERS:-1}"
[[ "$STACK_BROKERS" == 1 || "$STACK_BROKERS" == 3 ]] || { printf '[stack] ERROR: STACK_BROKERS must be 1 or 3, not %s\n' "$STACK_BROKERS" >&2; exit 1; }
# 1 puts a Toxiproxy between clients and each broker (stack/toxiproxy.sh); its API on TOXIPROXY_PORT.
STACK_TOXIPROXY="${STACK_TOXIPROXY:-0}"
TOXIPROXY_PORT="${TOXIPROXY_PORT:-8474}"

# Fixed cluster id (22-char base64 UUID) so the formatted storage can be reused as a template.
KAFKA_CLUSTER_ID="MkU3OEVBNTcwNTJENDM2Qk"

# Startup-oriented JVM flags: C1 only and the serial collector start fastest on 2 cores; heaps are
# bounded so the whole stack stays under ~1 GiB.
read -r -a STACK_JVM_FLAGS <<<"${STACK_JVM_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData -Djava.awt.headless=true}"
KAFKA_HEAP="${KAFKA_HEAP:--Xms128m -Xmx512m}"
REGISTRY_HEAP="${REGISTRY_HEAP:--Xms64m -Xmx384m}"

# kafka_broker_settings REPLICATION_FACTOR MIN_ISR -> stack/kafka-broker.properties, the settings
# every broker of the project shares, with every *replication.factor set to the first and every
# *.min.isr and min.insync.replicas to the second (the file holds the single node's 1 and 1).
kafka_broker_settings() {
  awk -v rf="$1" -v isr="$2" '
    /^[[:space:]]*([#!]|$)/ { print; next }
    { key = substr($0, 1, index($0, "=") - 1) }
    key ~ /replication\.factor$/ { print key "=" rf; next }
    key ~ /\.min\.isr$/ || key == "min.insync.replicas" { print key "=" isr; next }
    { print }
  ' "$STACK_SRC/kafka-broker.properties"
}

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] ERROR: %s\n' "$*" >&2; exit 1; }

now_ms() { date +%s%3N; }

# pid_alive NAME -> 0 when .stack/run/NAME.pid names a live process whose command line still
# looks like ours (guards against pid reuse after a reboot).
pid_alive() {
  local name="$1" pid_file="$RUN_DIR/$1.pid" pid cmd
  [[ -s "$pid_file" ]] || return 1
  pid="$(<"$pid_file")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  running "$pid" || return 1
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  case "$name" in
    kafka) [[ "$cmd" == *kafka.Kafka* && "$cmd" != *-Dkafka.stack.node=kafka-* ]] ;;
    kafka-*) [[ "$cmd" == *kafka.Kafka* && "$cmd" == *"-Dkafka.stack.node=$name "* ]] ;;
    toxiproxy) [[ "$cmd" == *toxiproxy* ]] ;;
    registry) [[ "$cmd" == *"$STACK_DIR/apicurio/"* ]] ;;
    redis) [[ "$cmd" == *redis-server* ]] ;;
    *) return 1 ;;
  esac
}

# running PID -> 0 when the process exists and is not a zombie (an exited daemon whose new parent
# has not reaped it yet counts as gone).
running() {
  local state
  state="$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null)" || return 1
  [[ -n "$state" && "$state" != Z && "$state" != X ]]
}

pid_of() { cat "$RUN_DIR/$1.pid"; }

# node_port BASE NODE -> the port of a cluster node: the default plus 10 per node after the first.
node_port() { echo $(( $1 + 10 * ($2 - 1) )); }

# port_in_use PORT -> 0 when something listens on 127.0.0.1:PORT
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Serialise up/down across concurrent callers (several test runs may share one stack).
take_lock() {
  mkdir -p "$RUN_DIR"
  exec 9>"$RUN_DIR/.lock"
  flock -w 600 9 || die "could not lock $RUN_DIR/.lock"
}

require_java() {
  command -v java >/dev/null 2>&1 || die "java not found: install a JDK/JRE 17+ (Debian: apt-get install openjdk-17-jre-headless)"
  local v
  v="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [[ "${v%%.*}" -ge 17 ]] 2>/dev/null || die "java $v found, Kafka 4 and Apicurio 3 need 17+"
}
