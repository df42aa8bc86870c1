import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A real local HTTP server that records webhook calls and answers with scripted statuses. */
export class WebhookReceiver {
  readonly calls: ReceivedCall[] = [];
  /** Statuses for the next calls, in order; 200 once exhausted. */
  statuses: number[] = [];
  private server: Server | undefined;
  private waiters: { count: number; resolve: () => void }[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.calls.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        res.statusCode = this.statuses.shift() ?? 200;
        res.end('ok');
        this.waiters = this.waiters.filter((waiter) => {
          if (this.calls.length < waiter.count) return true;
          waiter.resolve();
          return false;
        });
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  }

  /** Resolves once at least `count` calls have arrived. */
  async waitForCalls(count: number): Promise<void> {
    if (this.calls.length >= count) return;
    await new Promise<void>((resolve) => this.waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
  }
}
