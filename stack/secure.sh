# shellcheck shell=bash
# The stack's secured Kafka listener (SASL_SSL): a throwaway CA and broker certificate, and the
# SCRAM client's password. Sourced by stack/up.sh after lib.sh, never run.

SECURE_DIR="$STACK_DIR/secure"
SECURE_CA_FILE="$SECURE_DIR/ca.pem"
SECURE_KEYSTORE_FILE="$SECURE_DIR/broker-keystore.pem"
SECURE_PASSWORD_FILE="$SECURE_DIR/client.password"
KAFKA_SCRAM_USER="stack-client"

# secure_password: the SCRAM client's password, made once per stack directory. It is written into
# the formatted Kafka storage (format --add-scram), so a new one needs a new storage template.
secure_password() {
  mkdir -p "$SECURE_DIR"
  chmod 700 "$SECURE_DIR"
  if [[ ! -s "$SECURE_PASSWORD_FILE" ]]; then
    (umask 077 && openssl rand -hex 24 >"$SECURE_PASSWORD_FILE")
  fi
  tr -d '\n' <"$SECURE_PASSWORD_FILE"
}

# secure_certificates: a new CA and a broker certificate for 127.0.0.1 and localhost, made at each
# start of Kafka (a few milliseconds with EC keys), so nothing ever expires under a long-lived
# stack directory. The broker reads its key and chain as one PEM keystore: no keytool, no JKS.
secure_certificates() {
  local tmp ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  mkdir -p "$SECURE_DIR"
  tmp="$(mktemp -d "$SECURE_DIR/.gen.XXXXXX")"
  (
    # One && chain: set -e does not apply inside a subshell whose status is tested.
    cd "$tmp" && umask 077 \
      && openssl req -x509 "${ec[@]}" -keyout ca.key -out ca.pem -days 3650 \
        -subj "/CN=verification-gateway local stack CA" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
      && openssl req "${ec[@]}" -keyout broker.key -out broker.csr -subj "/CN=127.0.0.1" \
      && printf '%s\n' 'subjectAltName=IP:127.0.0.1,DNS:localhost' 'extendedKeyUsage=serverAuth' \
        'basicConstraints=critical,CA:FALSE' >broker.ext \
      && openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 \
        -extfile broker.ext -out broker.crt \
      && cat broker.key broker.crt ca.pem >broker-keystore.pem \
      && chmod 644 ca.pem
  ) >"$LOG_DIR/secure-certificates.log" 2>&1 || {
    cat "$LOG_DIR/secure-certificates.log" >&2
    rm -rf "$tmp"
    die "could not generate the secure listener's certificates with openssl"
  }
  mv -f "$tmp/ca.pem" "$SECURE_CA_FILE"
  mv -f "$tmp/broker-keystore.pem" "$SECURE_KEYSTORE_FILE"
  rm -rf "$tmp"
}

# The listener's lines of server.properties (SECURE, next to PLAINTEXT and CONTROLLER).
secure_listener_config() {
  local jaas='org.apache.kafka.common.security.scram.ScramLoginModule required;'
  cat <<EOF
listener.name.secure.sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256
listener.name.secure.scram-sha-512.sasl.jaas.config=$jaas
listener.name.secure.scram-sha-256.sasl.jaas.config=$jaas
listener.name.secure.ssl.keystore.type=PEM
listener.name.secure.ssl.keystore.location=$SECURE_KEYSTORE_FILE
EOF
}

# The StorageTool flags that create the SCRAM client at format time (KRaft has no ZooKeeper to
# hold credentials, and kafka-configs after start would cost another JVM start).
secure_scram_format_flags() { # PASSWORD
  local mechanism
  for mechanism in SCRAM-SHA-512 SCRAM-SHA-256; do
    printf '%s\n' --add-scram "$mechanism=[name=$KAFKA_SCRAM_USER,password=$1]"
  done
}

# True when the running broker was started with this stack's secure listener.
secure_listener_running() { # SERVER_PROPERTIES
  grep -q "^listeners=.*SECURE://127.0.0.1:$KAFKA_SECURE_PORT" "$1" 2>/dev/null \
    && [[ -s "$SECURE_CA_FILE" && -s "$SECURE_PASSWORD_FILE" ]]
}
