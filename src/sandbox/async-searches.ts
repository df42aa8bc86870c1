import type { Logger } from '../observability/logger.js';
import { buildVehicleBase, toAsyncVehicle } from './data/vehicle-record.js';
import { newId } from './envelope.js';
import type { SandboxKnobs } from './knobs.js';
import { Prng } from './random.js';
import { asyncFinalStatus } from './scenarios.js';
import type { WebhookSender, WebhookTarget } from './webhook-sender.js';

export type AsyncStatus = 'pending' | 'sucessful' | 'error';

/** `data` of GET /vehicles-async/v3/:requestId. The status is spelled `sucessful`, as the spec. */
export interface AsyncSearchRecord {
  status: AsyncStatus;
  requestId: string;
  licensePlate: string;
  createdAt: string;
  vehicleData: Record<string, unknown> | null;
  /** Exactly as received at creation, or null. */
  webhook: unknown;
}

export interface AsyncSearchDeps {
  knobs: SandboxKnobs;
  webhooks: WebhookSender;
  logger: Logger | undefined;
  /** Bound on stored searches; the oldest go first (benchmarks create many). */
  capacity?: number;
}

export class AsyncSearchStore {
  private readonly searches = new Map<string, AsyncSearchRecord>();
  /** Each pending search's timer, with what ends it. */
  private readonly timers = new Map<NodeJS.Timeout, () => void>();

  constructor(private readonly deps: AsyncSearchDeps) {}

  /** Creates a pending search that turns final after `asyncDelayMs`, then calls its webhook. */
  create(
    licensePlate: string,
    receivedWebhook: unknown,
    target: WebhookTarget | undefined,
  ): AsyncSearchRecord {
    const record: AsyncSearchRecord = {
      status: 'pending',
      requestId: newId(),
      licensePlate,
      createdAt: new Date().toISOString(),
      vehicleData: null,
      webhook: receivedWebhook ?? null,
    };
    this.searches.set(record.requestId, record);
    const capacity = this.deps.capacity ?? 100_000;
    if (this.searches.size > capacity) {
      const oldest = this.searches.keys().next();
      if (oldest.done !== true) this.searches.delete(oldest.value);
    }
    const finish = (): void => {
      this.complete(record, target);
    };
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      finish();
    }, this.deps.knobs.asyncDelayMs);
    this.timers.set(timer, finish);
    return record;
  }

  /**
   * Ends every pending search now, as if its delay had run out (webhooks sent as usual), and
   * returns how many: a test decides when the vendor finishes instead of racing a delay.
   */
  finishPending(): number {
    const pending = [...this.timers];
    this.timers.clear();
    for (const [timer, finish] of pending) {
      clearTimeout(timer);
      finish();
    }
    return pending.length;
  }

  get(requestId: string): AsyncSearchRecord | undefined {
    return this.searches.get(requestId);
  }

  /** Forgets every search and cancels pending completions (their webhooks are never sent). */
  clear(): void {
    for (const timer of this.timers.keys()) clearTimeout(timer);
    this.timers.clear();
    this.searches.clear();
  }

  private complete(record: AsyncSearchRecord, target: WebhookTarget | undefined): void {
    const status = asyncFinalStatus(record.licensePlate);
    if (status === 'sucessful') {
      // Seeded like the synchronous lookup by plate, so both describe the same vehicle.
      const prng = Prng.from(`vehicle:licensePlate:${record.licensePlate}`);
      record.vehicleData = toAsyncVehicle(buildVehicleBase(prng, { licensePlate: record.licensePlate }));
    }
    record.status = status;
    this.deps.logger?.debug({ requestId: record.requestId, status }, 'sandbox async search finished');
    if (target !== undefined) this.deps.webhooks.deliver(target);
  }
}
