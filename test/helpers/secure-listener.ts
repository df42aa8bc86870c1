/**
 * Kafka's SASL_SSL listener for the tests: what test/global-setup.ts hands them as
 * `inject('kafkaSecure')`, from KAFKA_SECURE_* variables or stack/up.sh's output.
 */

/** Kafka's SASL_SSL listener (TLS + SCRAM) as stack/up.sh prints it. */
export interface SecureKafkaListener {
  /** Comma-separated host:port list of the secured listener. */
  brokers: string;
  /** PEM file of the CA that signed the broker's certificate. */
  caFile: string;
  /** SCRAM user (both SCRAM-SHA-512 and SCRAM-SHA-256). */
  username: string;
  /** File holding the SCRAM user's password. */
  passwordFile: string;
}

export type SecureKafka = SecureKafkaListener | { missing: string };

/** The secured listener; throws the reason it is missing (tests fail, never skip, without it). */
export function secureListener(provided: SecureKafka): SecureKafkaListener {
  if ('missing' in provided) throw new Error(`no SASL_SSL Kafka listener for this test: ${provided.missing}`);
  return provided;
}

const SECURE_VARS = [
  'KAFKA_SECURE_BROKERS',
  'KAFKA_SECURE_CA_FILE',
  'KAFKA_SECURE_USERNAME',
  'KAFKA_SECURE_PASSWORD_FILE',
] as const;

/** The SASL_SSL listener from KAFKA_SECURE_* variables (all four or none), else `whenMissing`. */
export function secureFrom(
  vars: Readonly<Record<string, string | undefined>>,
  whenMissing: string,
): SecureKafka {
  const [brokers, caFile, username, passwordFile] = SECURE_VARS.map((name) => vars[name] ?? '');
  if (!brokers && !caFile && !username && !passwordFile) return { missing: whenMissing };
  if (!brokers || !caFile || !username || !passwordFile) {
    throw new Error(`set all of ${SECURE_VARS.join(', ')}, or none of them`);
  }
  return { brokers, caFile, username, passwordFile };
}
