import kafkajs from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { kafkaConnectError } from '../../src/kafka-connect-errors.js';

const { KafkaJSConnectionError, KafkaJSNumberOfRetriesExceeded } = kafkajs;
// kafkajs' types leave out the message its constructor takes.
const KafkaJSSASLAuthenticationError = kafkajs.KafkaJSSASLAuthenticationError as unknown as new (
  message: string,
) => Error;

// The errors as kafkajs raises them from admin.connect(): the first failure wrapped by its retrier.
function afterRetries(error: Error): Error {
  return new KafkaJSNumberOfRetriesExceeded(error, { retryCount: 5, retryTime: 300 });
}

describe('a failed first connection to Kafka', () => {
  it('names KAFKA_SASL_PASSWORD when the brokers refuse the SASL login, without quoting kafkajs', () => {
    const refused = new KafkaJSSASLAuthenticationError('SASL PLAIN authentication failed for user=someone');
    for (const thrown of [refused, afterRetries(refused)]) {
      const explained = kafkaConnectError(thrown);
      expect(explained).toBeInstanceOf(ConfigError);
      expect((explained as ConfigError).setting).toBe('KAFKA_SASL_PASSWORD');
      expect((explained as ConfigError).describe()).toMatch(/^configuration error: KAFKA_SASL_PASSWORD: /);
      expect((explained as ConfigError).message).not.toContain('someone');
    }
  });

  it.each(['SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'ERR_TLS_CERT_ALTNAME_INVALID'])(
    'names KAFKA_SSL_CA_FILE when the broker certificate is not trusted (%s)',
    (code) => {
      const tls = new KafkaJSConnectionError('Connection error: certificate', { broker: 'b:9094', code });
      const explained = kafkaConnectError(afterRetries(tls));
      expect(explained).toBeInstanceOf(ConfigError);
      expect((explained as ConfigError).setting).toBe('KAFKA_SSL_CA_FILE');
      expect((explained as ConfigError).message).toContain(code);
    },
  );

  it('leaves any other failure as it was (a broker that is down is no setting to fix)', () => {
    const refused = afterRetries(
      new KafkaJSConnectionError('Connection error: connect ECONNREFUSED', {
        broker: 'b:9092',
        code: 'ECONNREFUSED',
      }),
    );
    expect(kafkaConnectError(refused)).toBe(refused);
    expect(kafkaConnectError('not an error')).toBe('not an error');
  });
});
