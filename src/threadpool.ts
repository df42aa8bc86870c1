/**
 * librdkafka's blocking calls (a consume, a committed-offsets read, a transaction call) each hold
 * a thread of libuv's pool while they wait, and a call librdkafka does not return in time
 * (librdkafka#5456: transactional-producer.ts gives it up) holds its thread until it does. libuv's
 * 4 threads by default would then leave none for the rest: 64 unless UV_THREADPOOL_SIZE says
 * otherwise. Imported first by cli.ts (libuv sizes its pool at its first use); the image and
 * `npm start` set it too, before Node starts. 64, not 16: on a three-node cluster, after a
 * coordinator was killed, a replica's pool was taken (most likely by calls that did not return:
 * transaction calls given up, the producers replaced after them); its new producer's connect, its
 * readiness check and its log writes then waited, for minutes. An idle thread costs its
 * stack's address space, not memory.
 */
process.env.UV_THREADPOOL_SIZE ??= '64';

export {};
