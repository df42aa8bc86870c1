/**
 * The KIP-447 protocol versions patched into kafkajs (patches/kafkajs+2.2.4+001+kip447-protocol.patch), against
 * bytes written out by hand from Kafka's message specs (TxnOffsetCommitRequest.json v3,
 * OffsetFetchRequest.json v7 and their responses; flexible versions: compact strings and arrays
 * with length + 1, a tag buffer after each struct; kafkajs writes request header v2's tag
 * buffer as the payload's first byte and reads response header v1's as the body's first).
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface Encoded {
  apiKey: number;
  apiVersion: number;
  encode(): Promise<{ buffer: Buffer }>;
}
interface ResponseCodec {
  decode(raw: Buffer): Promise<unknown>;
  parse(decoded: unknown): Promise<unknown>;
}
type RequestFactory = (args: Record<string, unknown>) => Encoded;
interface Protocol {
  versions: string[];
  protocol(args: { version: number }): (args: Record<string, unknown>) => {
    request: Encoded;
    response: ResponseCodec;
  };
}

const requests = 'kafkajs/src/protocol/requests';
const txnOffsetCommit = require(`${requests}/txnOffsetCommit`) as Protocol;
const txnOffsetCommitV3 = require(`${requests}/txnOffsetCommit/v3/request`) as RequestFactory;
const txnOffsetCommitV3Response = require(`${requests}/txnOffsetCommit/v3/response`) as ResponseCodec;
const offsetFetch = require(`${requests}/offsetFetch`) as Protocol;
const offsetFetchV7 = require(`${requests}/offsetFetch/v7/request`) as RequestFactory;
const offsetFetchV7Response = require(`${requests}/offsetFetch/v7/response`) as ResponseCodec;

const bytes = (...parts: (number | string | number[])[]): Buffer =>
  Buffer.concat(
    parts.map((part) =>
      typeof part === 'string' ? Buffer.from(part) : Buffer.from(Array.isArray(part) ? part : [part]),
    ),
  );
const int16 = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const int32 = (n: number) => [...Buffer.from(new Int32Array([n]).buffer).reverse()];
const int64 = (n: number) => [0, 0, 0, 0, ...int32(n)];

describe('TxnOffsetCommit v3 (KIP-447)', () => {
  it('is the version kafkajs picks when the broker supports it', () => {
    expect(txnOffsetCommit.versions).toContain('3');
    const { request } = txnOffsetCommit.protocol({ version: 3 })({
      transactionalId: 'tx',
      groupId: 'g',
      producerId: 5,
      producerEpoch: 1,
      topics: [],
    });
    expect([request.apiKey, request.apiVersion]).toEqual([28, 3]);
  });

  it("encodes the group's generation and member with the offsets", async () => {
    const request = txnOffsetCommitV3({
      transactionalId: 'tx',
      groupId: 'g',
      producerId: 5,
      producerEpoch: 1,
      generationId: 7,
      memberId: 'm',
      topics: [{ topic: 't', partitions: [{ partition: 0, offset: '42' }] }],
    });
    const { buffer } = await request.encode();
    expect(buffer).toEqual(
      bytes(
        0, // request header's tag buffer
        3,
        'tx', // transactional_id
        2,
        'g', // group_id
        int64(5), // producer_id
        int16(1), // producer_epoch
        int32(7), // generation_id
        2,
        'm', // member_id
        0, // group_instance_id: null
        2, // one topic
        2,
        't',
        2, // one partition
        int32(0), // partition_index
        int64(42), // committed_offset
        int32(-1), // committed_leader_epoch: unknown
        0, // committed_metadata: null
        0, // partition's tag buffer
        0, // topic's tag buffer
        0, // request's tag buffer
      ),
    );
  });

  it('asks for no group check without a generation (generation -1, member empty)', async () => {
    const { buffer } = await txnOffsetCommitV3({
      transactionalId: 'tx',
      groupId: 'g',
      producerId: 5,
      producerEpoch: 1,
      topics: [],
    }).encode();
    // After tag buffer (1), transactional_id (3), group_id (2), producer id and epoch (10).
    expect(buffer.subarray(16, 22)).toEqual(bytes(int32(-1), 1, 0));
  });

  it("decodes the answer and refuses a zombie's offsets with the broker's error", async () => {
    const answer = (errorCode: number) =>
      bytes(0, int32(0), 2, 2, 't', 2, int32(0), int16(errorCode), 0, 0, 0);
    expect(await txnOffsetCommitV3Response.decode(answer(0))).toEqual({
      throttleTime: 0,
      clientSideThrottleTime: 0,
      topics: [{ topic: 't', partitions: [{ partition: 0, errorCode: 0 }] }],
    });
    const refused = await txnOffsetCommitV3Response.decode(answer(22));
    await expect(txnOffsetCommitV3Response.parse(refused)).rejects.toMatchObject({
      type: 'ILLEGAL_GENERATION',
    });
  });
});

describe('OffsetFetch v7 (require_stable)', () => {
  it('is the version kafkajs picks when the broker supports it', () => {
    expect(offsetFetch.versions).toContain('7');
  });

  it('encodes require_stable after the topics', async () => {
    const { buffer } = await offsetFetchV7({
      groupId: 'g',
      topics: [{ topic: 't', partitions: [{ partition: 0 }, { partition: 1 }] }],
      requireStable: true,
    }).encode();
    expect(buffer).toEqual(bytes(0, 2, 'g', 2, 2, 't', 3, int32(0), int32(1), 0, 1, 0));
  });

  it('decodes committed offsets, and an unstable partition as the retriable UNSTABLE_OFFSET_COMMIT', async () => {
    const answer = (errorCode: number) =>
      bytes(
        0, // response header's tag buffer
        int32(0), // throttle_time_ms
        2, // one topic
        2,
        't',
        2, // one partition
        int32(1), // partition_index
        int64(42), // committed_offset
        int32(-1), // committed_leader_epoch
        0, // metadata: null
        int16(errorCode),
        0,
        0,
        int16(0), // error_code
        0,
      );
    expect(await offsetFetchV7Response.decode(answer(0))).toEqual({
      throttleTime: 0,
      clientSideThrottleTime: 0,
      responses: [{ topic: 't', partitions: [{ partition: 1, offset: '42', metadata: null, errorCode: 0 }] }],
      errorCode: 0,
    });
    const unstable = await offsetFetchV7Response.decode(answer(88));
    await expect(offsetFetchV7Response.parse(unstable)).rejects.toMatchObject({
      type: 'UNSTABLE_OFFSET_COMMIT',
      retriable: true,
    });
  });
});
