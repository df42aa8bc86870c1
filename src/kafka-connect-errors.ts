import kafkajs from 'kafkajs';
import { ConfigError } from './errors.js';

// kafkajs is CommonJS and spreads its error classes into its exports, which Node's named-export
// detection cannot see: they are read from the default export.
const { KafkaJSSASLAuthenticationError } = kafkajs;

/**
 * Node's codes for a broker certificate the client does not trust. kafkajs keeps the socket
 * error's code on its KafkaJSConnectionError, under the retry errors that wrap it.
 */
const UNTRUSTED_CERTIFICATE = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * A failed first connection to Kafka that a setting can fix, as a ConfigError naming that
 * setting: refused SASL credentials, or a broker certificate that is not trusted. Anything else
 * (a broker that is down...) comes back unchanged. The message never quotes a credential.
 */
export function kafkaConnectError(error: unknown): unknown {
  const chain = causes(error);
  if (chain.some((e) => e instanceof KafkaJSSASLAuthenticationError)) {
    return new ConfigError(
      'KAFKA_SASL_PASSWORD',
      'the brokers refused the SASL login (KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and ' +
        'KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE must match a user of the cluster)',
    );
  }
  const untrusted = chain.map(codeOf).find((code) => code !== undefined && UNTRUSTED_CERTIFICATE.has(code));
  if (untrusted !== undefined) {
    return new ConfigError(
      'KAFKA_SSL_CA_FILE',
      `the brokers' TLS certificate is not trusted (${untrusted}): give the CA that signed it ` +
        'in KAFKA_SSL_CA_FILE, and connect by a name the certificate holds',
    );
  }
  return error;
}

/** The error and what it wraps: `cause`, and kafkajs' retry errors' `originalError`. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current instanceof Error && !chain.includes(current) && chain.length < 10) {
    chain.push(current);
    const { cause, originalError } = current as Error & { originalError?: unknown };
    current = cause ?? originalError;
  }
  return chain;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
