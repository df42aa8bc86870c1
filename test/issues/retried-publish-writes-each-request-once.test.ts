/**
 * Pins a false exactly-once failure: the tests' request publisher was not idempotent. When the
 * broker appended a send but the publisher never saw it succeed (a partition refused in the
 * same request, a connection lost), the send was retried whole and appended again: those
 * requests became two request messages each, and were rightly answered twice (runtime-faults
 * once counted 53 outcomes for 40 requests; reproduced, its request topic held 14 of its first
 * 20 requests twice). Here the connection carrying the first Produce request fails as its
 * answer arrives: the broker has appended, the publisher retries.
 *
 * The client (librdkafka) opens its own sockets, to the addresses the broker advertises: the
 * publisher reaches the broker through a proxy here, which has the broker's metadata name the
 * proxy as the broker, and loses the answer to the first Produce request.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { expect, inject, it } from 'vitest';
import { publish, summaryRequests } from '../helpers/service.js';
import { brokerList, createTopic, kafkaClient, randomName } from '../helpers/stack.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const { admin, onCleanup } = useTestKafka();

it('a publish retried after the answer to an appended send was lost writes each request once', async () => {
  const client = await admin();
  const topic = randomName('publish-retried');
  await createTopic(client, topic, 3);
  onCleanup(() => client.deleteTopics({ topics: [topic] }).catch(() => undefined));
  const [broker = ''] = brokerList(inject('kafkaBrokers'));
  const trap = new LostProduceAnswer(broker);
  const address = await trap.listen();
  onCleanup(() => trap.close());
  const kafka = kafkaClient(address);

  await publish(kafka, topic, summaryRequests('retried', 20, 700));

  expect(trap.lost).toBe(true);
  const ends = await client.fetchTopicOffsets(topic);
  expect(ends.reduce((sum, p) => sum + Number(p.high), 0)).toBe(20);
});

const PRODUCE = 0;
const METADATA = 3;
const API_VERSIONS = 18;
/** The last Metadata version with fixed-size fields (v9 is flexible): its broker list is rewritten in place. */
const METADATA_MAX_VERSION = 8;

/**
 * A proxy in front of one broker that fails the connection carrying the first Produce request as
 * its answer arrives, after the broker appended it. It keeps the client on itself: the broker's
 * ApiVersions answer is capped at Metadata v8, and each Metadata answer names the proxy's port
 * for every broker. Kafka frames: a request is int32 size, int16 api key, int16 version, int32
 * correlation id; an answer int32 size, int32 correlation id (header v0 for both rewritten).
 */
class LostProduceAnswer {
  lost = false;
  private port = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly upstream: { host: string; port: number };

  constructor(broker: string) {
    const at = broker.lastIndexOf(':');
    this.upstream = { host: broker.slice(0, at), port: Number(broker.slice(at + 1)) };
    this.server = createServer((socket) => {
      this.relay(socket);
    });
  }

  /** Starts listening; the proxy's address, host:port. */
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
    this.port = address.port;
    return `127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private relay(client: Socket): void {
    const broker = connect(this.upstream);
    for (const socket of [client, broker]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        broker.destroy();
      });
    }
    const requests = new Map<number, { apiKey: number; version: number }>();
    frames(client, (frame) => {
      requests.set(frame.readInt32BE(8), { apiKey: frame.readInt16BE(4), version: frame.readInt16BE(6) });
      broker.write(frame);
    });
    frames(broker, (frame) => {
      const correlationId = frame.readInt32BE(4);
      const request = requests.get(correlationId);
      requests.delete(correlationId);
      if (request?.apiKey === PRODUCE && !this.lost) {
        this.lost = true;
        client.destroy();
        return;
      }
      if (request?.apiKey === API_VERSIONS) capMetadata(frame, request.version);
      if (request?.apiKey === METADATA) this.nameProxy(frame, request.version);
      client.write(frame);
    });
  }

  /** Every broker of a Metadata answer (v1 to v8) at the proxy's port. */
  private nameProxy(frame: Buffer, version: number): void {
    if (version > METADATA_MAX_VERSION) throw new Error(`Metadata v${version} asked past the cap`);
    let at = 8 + (version >= 3 ? 4 : 0);
    const brokers = frame.readInt32BE(at);
    at += 4;
    for (let i = 0; i < brokers; i += 1) {
      at += 4; // node id
      at += 2 + frame.readInt16BE(at); // host
      frame.writeInt32BE(this.port, at);
      at += 4;
      if (version >= 1) {
        const rack = frame.readInt16BE(at);
        at += 2 + Math.max(0, rack);
      }
    }
  }
}

/** Calls `onFrame` with each whole size-prefixed frame read from `socket`. */
function frames(socket: Socket, onFrame: (frame: Buffer) => void): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const size = 4 + pending.readInt32BE(0);
      onFrame(pending.subarray(0, size));
      pending = pending.subarray(size);
    }
  });
}

/** An ApiVersions answer with Metadata's highest version lowered to METADATA_MAX_VERSION. */
function capMetadata(frame: Buffer, version: number): void {
  let at = 8;
  if (frame.readInt16BE(at) !== 0) return; // an error answer (lists what it supports in v0)
  at += 2;
  const flexible = version >= 3;
  let count: number;
  if (flexible) {
    const length = readUnsignedVarint(frame, at);
    at = length.next;
    count = length.value - 1;
  } else {
    count = frame.readInt32BE(at);
    at += 4;
  }
  for (let i = 0; i < count; i += 1) {
    if (frame.readInt16BE(at) === METADATA && frame.readInt16BE(at + 4) > METADATA_MAX_VERSION)
      frame.writeInt16BE(METADATA_MAX_VERSION, at + 4);
    at += 6;
    if (flexible) at = skipTaggedFields(frame, at);
  }
}

function readUnsignedVarint(buffer: Buffer, start: number): { value: number; next: number } {
  let value = 0;
  let shift = 0;
  let at = start;
  for (;;) {
    const byte = buffer.readUInt8(at);
    at += 1;
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return { value, next: at };
    shift += 7;
  }
}

function skipTaggedFields(buffer: Buffer, start: number): number {
  const tags = readUnsignedVarint(buffer, start);
  let at = tags.next;
  for (let i = 0; i < tags.value; i += 1) {
    at = readUnsignedVarint(buffer, at).next;
    const size = readUnsignedVarint(buffer, at);
    at = size.next + size.value;
  }
  return at;
}
