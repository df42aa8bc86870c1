/**
 * Pins a false exactly-once failure: the tests' request publisher was not idempotent. When the
 * broker appended a send but the publisher never saw it succeed (a partition refused in the
 * same request, a connection lost), the send was retried whole and appended again: those
 * requests became two request messages each, and were rightly answered twice (runtime-faults
 * once counted 53 outcomes for 40 requests; reproduced, its request topic held 14 of its first
 * 20 requests twice). Here the connection carrying the first Produce request fails as its
 * answer arrives: the broker has appended, the publisher retries.
 */
import { connect, type Socket } from 'node:net';
import type { ISocketFactory } from 'kafkajs';
import { expect, inject, it } from 'vitest';
import { publish, summaryRequests } from '../helpers/service.js';
import { createTopic, kafkaClient, randomName } from '../helpers/stack.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const { admin, onCleanup } = useTestKafka();

const PRODUCE_API_KEY = 0;

it('a publish retried after the answer to an appended send was lost writes each request once', async () => {
  const client = await admin();
  const topic = randomName('publish-retried');
  await createTopic(client, topic, 3);
  onCleanup(() => client.deleteTopics({ topics: [topic] }).catch(() => undefined));
  const trap = new LostProduceAnswer();
  const kafka = kafkaClient(inject('kafkaBrokers'), { socketFactory: trap.socketFactory });

  await publish(kafka, topic, summaryRequests('retried', 20, 700));

  expect(trap.lost).toBe(true);
  const ends = await client.fetchTopicOffsets(topic);
  expect(ends.reduce((sum, p) => sum + Number(p.high), 0)).toBe(20);
});

/**
 * Sockets that fail the connection carrying the first Produce request as its answer arrives,
 * after the broker appended it. Kafka frames: a request is int32 size, int16 api key, int16
 * version, int32 correlation id; an answer int32 size, int32 correlation id.
 */
class LostProduceAnswer {
  lost = false;

  readonly socketFactory: ISocketFactory = ({ host, port, onConnect }) => {
    const socket = connect({ host, port }, onConnect);
    socket.setKeepAlive(true, 60_000);
    this.watch(socket);
    return socket;
  };

  private watch(socket: Socket): void {
    let produce: number | undefined;
    const write = socket.write.bind(socket) as (chunk: Buffer, encoding?: BufferEncoding) => boolean;
    const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
    Object.assign(socket, {
      write: (chunk: Buffer, encoding?: BufferEncoding): boolean => {
        if (!this.lost && produce === undefined && Buffer.isBuffer(chunk) && chunk.length >= 12)
          if (chunk.readInt16BE(4) === PRODUCE_API_KEY) produce = chunk.readInt32BE(8);
        return write(chunk, encoding);
      },
      emit: (event: string | symbol, ...args: unknown[]): boolean => {
        const [chunk] = args;
        if (event === 'data' && !this.lost && produce !== undefined && Buffer.isBuffer(chunk)) {
          if (chunk.length >= 8 && chunk.readInt32BE(4) === produce) {
            this.lost = true;
            socket.destroy(new Error('the answer to the Produce request was lost'));
            return true;
          }
        }
        return emit(event, ...args);
      },
    });
  }
}
