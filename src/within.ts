/**
 * `promise`, or a rejection once `ms` have passed (an Error with `late` when it is a message,
 * else the error `late` makes): the wait is bounded, the work itself is not cancelled. The
 * timer is cleared either way.
 */
export async function within<T>(
  promise: Promise<T>,
  ms: number,
  late: string | (() => Error) = `no answer within ${ms} ms`,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(typeof late === 'string' ? new Error(late) : late());
    }, ms);
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
