import { KafkaJS } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { kafkaConnectError } from '../../src/kafka-connect-errors.js';

// What the client's admin request fails with when the brokers cannot be talked to, whatever the
// reason: librdkafka says why only in its error log (recentClientErrors).
const transportFailure = (): Error =>
  new KafkaJS.KafkaJSConnectionError('Local: Broker transport failure', {
    code: KafkaJS.ErrorCodes.ERR__TRANSPORT,
  });

const line = (text: string): string =>
  `[thrd:sasl_ssl://b:9094/bootstrap]: sasl_ssl://b:9094/bootstrap: ${text}`;

describe('a failed first connection to Kafka', () => {
  it('names KAFKA_SASL_PASSWORD when the brokers refuse the SASL login, without quoting the user', () => {
    const logged = [
      line(
        'SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 (after 3ms in state AUTH_REQ, user=someone)',
      ),
    ];
    const explained = kafkaConnectError(transportFailure(), logged);
    expect(explained).toBeInstanceOf(ConfigError);
    expect((explained as ConfigError).setting).toBe('KAFKA_SASL_PASSWORD');
    expect((explained as ConfigError).describe()).toMatch(/^configuration error: KAFKA_SASL_PASSWORD: /);
    expect((explained as ConfigError).message).not.toContain('someone');
  });

  it('names KAFKA_SASL_PASSWORD from the lines librdkafka logs for a refused SCRAM login, among others', () => {
    // Verbatim from the client against the stack's SASL_SSL listener, a wrong password: a
    // transient line first (logged before the login was refused), then the refusal, repeated.
    const logged = [
      '[thrd:sasl_ssl://127.0.0.1:9094/bootstrap]: sasl_ssl://127.0.0.1:9094/bootstrap: Connect to ipv4#127.0.0.1:9094 failed: Connection refused (after 0ms in state CONNECT)',
      '[thrd:sasl_ssl://127.0.0.1:9094/bootstrap]: sasl_ssl://127.0.0.1:9094/bootstrap: SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 (after 308ms in state AUTH_REQ)',
      '[thrd:sasl_ssl://127.0.0.1:9094/bootstrap]: sasl_ssl://127.0.0.1:9094/bootstrap: SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 (after 309ms in state AUTH_REQ, 1 identical error(s) suppressed)',
    ];
    const explained = kafkaConnectError(transportFailure(), logged);
    expect(explained).toBeInstanceOf(ConfigError);
    expect((explained as ConfigError).setting).toBe('KAFKA_SASL_PASSWORD');
    // The setting's own words, not the client's line.
    expect((explained as ConfigError).message).not.toContain('127.0.0.1');
  });

  it('names KAFKA_SASL_PASSWORD for the client error code of a refused login too', () => {
    const refused = new KafkaJS.KafkaJSError('authentication failure', {
      code: KafkaJS.ErrorCodes.ERR__AUTHENTICATION,
    });
    expect((kafkaConnectError(refused) as ConfigError).setting).toBe('KAFKA_SASL_PASSWORD');
  });

  // Verbatim from the client against the stack's SASL_SSL listener: without the stack's CA (the
  // system's CAs only), and, the CA given, connecting by a name its certificate does not hold.
  it.each([
    'SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: broker certificate could not be verified, verify that ssl.ca.location is correctly configured or root CA certificates are installed (install ca-certificates package) (after 3ms in state SSL_HANDSHAKE)',
    'error:0A000086:SSL routines::certificate verify failed (after 2ms in state SSL_HANDSHAKE)',
    'SSL handshake failed: error:0A000086:SSL routines::certificate verify failed: broker certificate could not be verified, verify that ssl.ca.location is correctly configured or root CA certificates are installed (install ca-certificates package) (after 5ms in state SSL_HANDSHAKE, 1 identical error(s) suppressed)',
  ])('names KAFKA_SSL_CA_FILE when the broker certificate is not trusted (%s)', (text) => {
    const explained = kafkaConnectError(transportFailure(), [line(text)]);
    expect(explained).toBeInstanceOf(ConfigError);
    expect((explained as ConfigError).setting).toBe('KAFKA_SSL_CA_FILE');
    expect((explained as ConfigError).message).toContain('certificate verify failed');
  });

  it('leaves any other failure as it was (a broker that is down is no setting to fix)', () => {
    const down = transportFailure();
    const logged = [
      line('Connect to ipv4#127.0.0.1:9094 failed: Connection refused (after 0ms in state CONNECT)'),
    ];
    expect(kafkaConnectError(down, logged)).toBe(down);
    expect(kafkaConnectError(down)).toBe(down);
    expect(kafkaConnectError('not an error')).toBe('not an error');
  });
});
