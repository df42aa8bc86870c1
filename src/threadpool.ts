/**
 * librdkafka's blocking calls (a consume, a committed-offsets read, a transaction call) each hold
 * a thread of libuv's pool while they wait, and a call librdkafka does not return in time
 * (librdkafka#5456: transactional-producer.ts gives it up) holds its thread until it does. libuv's
 * 4 threads by default would then leave none for the rest: 16 unless UV_THREADPOOL_SIZE says
 * otherwise. Imported first by cli.ts (libuv sizes its pool at its first use); the image and
 * `npm start` set it too, before Node starts.
 */
process.env.UV_THREADPOOL_SIZE ??= '16';

export {};
