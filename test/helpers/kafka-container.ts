/**
 * The environment of the testcontainers broker (test/global-setup.ts): the broker settings every
 * Kafka of the project shares, from stack/kafka-broker.properties (stack/up.sh appends the same
 * file to its nodes' server.properties, compose.yaml's kafka service reads it too), named for the
 * apache/kafka image by stack/kafka-broker-env.sh, and then what is this container's own: its
 * listeners, node id and heap. test/unit/broker-settings.test.ts pins the parity.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BROKER_SETTINGS_FILE = join(ROOT, 'stack', 'kafka-broker.properties');
const BROKER_ENV_SCRIPT = join(ROOT, 'stack', 'kafka-broker-env.sh');

/** The KAFKA_* variables of a broker properties file, as stack/kafka-broker-env.sh names them. */
export function brokerSettingsEnvironment(file: string = BROKER_SETTINGS_FILE): Record<string, string> {
  const out = execFileSync('bash', [BROKER_ENV_SCRIPT, file], { encoding: 'utf8' });
  const variables: Record<string, string> = {};
  for (const line of out.split('\n')) {
    if (line === '') continue;
    const equals = line.indexOf('=');
    variables[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return variables;
}

/** The cluster id of every broker of the project (stack/lib.sh's KAFKA_CLUSTER_ID, compose.yaml). */
const CLUSTER_ID = 'MkU3OEVBNTcwNTJENDM2Qk';

/**
 * The container's whole environment; `keystore` is where the SECURE listener's PEM keystore is
 * copied in it. The advertised listeners are not here: they name the ports the host maps, known
 * once the container runs.
 */
export function kafkaContainerEnvironment(keystore: string): Record<string, string> {
  const jaas = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
  const own: Record<string, string> = {
    CLUSTER_ID,
    KAFKA_NODE_ID: '1',
    KAFKA_PROCESS_ROLES: 'broker,controller',
    KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
    // PLAINTEXT: for the host (advertised with the mapped port); BROKER: the broker's own
    // connections to itself (transaction markers), which cannot use the host's address.
    KAFKA_LISTENERS:
      'PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093,BROKER://0.0.0.0:9094,SECURE://0.0.0.0:9095',
    KAFKA_LISTENER_SECURITY_PROTOCOL_MAP:
      'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,BROKER:PLAINTEXT,SECURE:SASL_SSL',
    // SECURE (SASL_SSL with SCRAM), as stack/up.sh's; listener.name.secure.*: `___` stands for
    // `-` in the image's variable names.
    KAFKA_LISTENER_NAME_SECURE_SASL_ENABLED_MECHANISMS: 'SCRAM-SHA-512,SCRAM-SHA-256',
    KAFKA_LISTENER_NAME_SECURE_SCRAM___SHA___512_SASL_JAAS_CONFIG: jaas,
    KAFKA_LISTENER_NAME_SECURE_SCRAM___SHA___256_SASL_JAAS_CONFIG: jaas,
    KAFKA_LISTENER_NAME_SECURE_SSL_KEYSTORE_TYPE: 'PEM',
    KAFKA_LISTENER_NAME_SECURE_SSL_KEYSTORE_LOCATION: keystore,
    KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
    KAFKA_INTER_BROKER_LISTENER_NAME: 'BROKER',
    KAFKA_HEAP_OPTS: '-Xms128m -Xmx512m',
  };
  const shared = brokerSettingsEnvironment();
  const both = Object.keys(own).filter((name) => name in shared);
  if (both.length > 0) {
    throw new Error(
      `${both.join(', ')}: set by stack/kafka-broker.properties, not by the container on its own`,
    );
  }
  return { ...shared, ...own };
}
