import { Presets, SingleBar } from 'cli-progress';

/**
 * The progress of a long read on stderr: offsets passed / offsets in the window (an estimate:
 * transaction markers and filtered messages count as passed), rate and time left. Shown when
 * stderr is a terminal, or on a pipe with --progress (then a plain line every two seconds).
 */
export interface Progress {
  start(total: number): void;
  update(value: number): void;
  stop(): void;
}

export const noProgress: Progress = {
  start: () => undefined,
  update: () => undefined,
  stop: () => undefined,
};

export interface ProgressStream extends NodeJS.WritableStream {
  isTTY?: boolean;
}

export function progressFor(stream: ProgressStream, label: string, forced: boolean): Progress {
  const tty = stream.isTTY === true;
  if (!tty && !forced) return noProgress;
  const bar = new SingleBar(
    {
      stream,
      format: `${label} |{bar}| {value}/{total} · {rate}/s · {eta_formatted} left`,
      noTTYOutput: !tty,
      notTTYSchedule: 2_000,
      etaBuffer: 50,
      fps: 5,
      hideCursor: null,
    },
    Presets.shades_classic,
  );
  let startedAt = 0;
  return {
    start(total) {
      startedAt = Date.now();
      bar.start(total, 0, { rate: '0' });
    },
    update(value) {
      const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
      bar.update(value, { rate: Math.round(value / seconds).toString() });
    },
    stop() {
      bar.stop();
    },
  };
}
