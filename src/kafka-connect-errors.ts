import { KafkaJS } from '@confluentinc/kafka-javascript';
import { ConfigError } from './errors.js';

const { ErrorCodes } = KafkaJS;

/**
 * librdkafka's words for a broker certificate the client does not trust (OpenSSL's verify
 * errors, in the message of the client's SSL error).
 */
const UNTRUSTED_CERTIFICATE =
  /certificate verify failed|self[- ]signed certificate|unable to get (local )?issuer certificate|certificate is not trusted|hostname mismatch|broker certificate could not be verified/i;

/**
 * A failed first connection to Kafka that a setting can fix, as a ConfigError naming that
 * setting: refused SASL credentials, or a broker certificate that is not trusted. Anything else
 * (a broker that is down...) comes back unchanged. The message never quotes a credential.
 * librdkafka fails the request itself with a bare "broker transport failure" and says why in
 * its error log: `clientErrors` are those lines (recentClientErrors).
 */
export function kafkaConnectError(error: unknown, clientErrors: readonly string[] = []): unknown {
  const chain = [...causes(error), ...clientErrors.map((line) => new Error(line))];
  if (
    chain.some(
      (e) => codeOf(e) === ErrorCodes.ERR__AUTHENTICATION || /SASL authentication error/i.test(e.message),
    )
  ) {
    return new ConfigError(
      'KAFKA_SASL_PASSWORD',
      'the brokers refused the SASL login (KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and ' +
        'KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE must match a user of the cluster)',
    );
  }
  const untrusted = chain.find(
    (e) =>
      (codeOf(e) === ErrorCodes.ERR__SSL || /SSL/i.test(e.message)) && UNTRUSTED_CERTIFICATE.test(e.message),
  );
  if (untrusted !== undefined) {
    return new ConfigError(
      'KAFKA_SSL_CA_FILE',
      `the brokers' TLS certificate is not trusted (${UNTRUSTED_CERTIFICATE.exec(untrusted.message)?.[0] ?? 'certificate verify failed'}): ` +
        'give the CA that signed it in KAFKA_SSL_CA_FILE, and connect by a name the certificate holds',
    );
  }
  return error;
}

/** The error and what it wraps (`cause`). */
function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (current instanceof Error && !chain.includes(current) && chain.length < 10) {
    chain.push(current);
    current = current.cause;
  }
  return chain;
}

function codeOf(error: Error): number | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}
