/**
 * Faults of a replicated cluster (`npm run chaos -- --brokers 3`): a broker lost as partition
 * leader, as transaction coordinator or as the active controller; rolling broker restarts; the
 * network between the replicas and one broker slowed past the request timeout, cut, reset or
 * throttled (Toxiproxy); and a replica frozen past its session timeout.
 */
import { topicNames } from '../src/contract/operations.js';
import { ClusterView, replicaTransactionalId, Toxiproxy, type Toxic } from './cluster.js';
import type { FaultContext, Scenario } from './scenarios.js';
import { nodePart } from './stack.js';
import { OPERATION } from './traffic.js';

/** The replicas' Kafka request timeout on a cluster: KAFKA_REQUEST_TIMEOUT_MS's default. */
export const CHAOS_REQUEST_TIMEOUT_MS = 30_000;
const IN_SYNC_DEADLINE_MS = 120_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function requestTopic(ctx: FaultContext): string {
  return topicNames(ctx.prefix).request(OPERATION);
}

/**
 * Waits until every partition of the scenario's topics (requests, results, errors) and the
 * coordinators' topics has 3 replicas in sync: a next kill then meets a cluster in its steady
 * state, not one whose outputs still lack a replica (min.insync.replicas 2).
 */
async function waitInSync(ctx: FaultContext, view: ClusterView): Promise<void> {
  const names = topicNames(ctx.prefix);
  const topics = [
    requestTopic(ctx),
    names.result(OPERATION),
    names.errors,
    '__consumer_offsets',
    '__transaction_state',
  ];
  const deadline = Date.now() + IN_SYNC_DEADLINE_MS;
  while (!(await view.inSync(topics, 3).catch(() => false))) {
    if (Date.now() > deadline) throw new Error('partitions not back in sync within 2 minutes');
    await sleep(500);
  }
}

/** Outcomes arriving with no gap of over STEADY_GAP_MS for STEADY_MS, or STEADY_DEADLINE_MS passed. */
const STEADY_MS = 10_000;
const STEADY_GAP_MS = 2_000;
const STEADY_DEADLINE_MS = 120_000;

async function steadyOutcomes(ctx: FaultContext): Promise<void> {
  const deadline = Date.now() + STEADY_DEADLINE_MS;
  let steadySince = Date.now();
  while (Date.now() < deadline) {
    await sleep(250);
    const now = Date.now();
    if (now - ctx.observer.lastOutcomeAt > STEADY_GAP_MS) steadySince = now;
    else if (now - steadySince >= STEADY_MS) return;
  }
  ctx.log(`outcomes not steady within ${STEADY_DEADLINE_MS} ms; the next kill goes on`);
}

async function killNode(ctx: FaultContext, nodeId: number, why: string): Promise<number> {
  const view = new ClusterView(ctx.kafka);
  await ctx.stack.kill(nodePart(nodeId), 'SIGKILL');
  ctx.markFault();
  ctx.log(`node ${nodeId} (${why}) killed; down for ${ctx.settings.nodeDownMs} ms`);
  await sleep(ctx.settings.nodeDownMs);
  await ctx.stack.up();
  await waitInSync(ctx, view);
  ctx.log(`node ${nodeId} back and in sync`);
  return 1;
}

/** The coordinator of the first replica's transactional id (the replicas' ids spread over nodes). */
function coordinatorNode(ctx: FaultContext): Promise<number> {
  return new ClusterView(ctx.kafka).transactionCoordinator(replicaTransactionalId(ctx.prefix, 1));
}

async function withToxic(ctx: FaultContext, nodes: number[], toxics: Toxic[], why: string): Promise<number> {
  const proxy = new Toxiproxy(ctx.stack.toxiproxyUrl);
  for (const node of nodes) for (const toxic of toxics) await proxy.addToxic(node, toxic);
  ctx.markFault();
  const what = toxics.map((t) => `${t.type} ${JSON.stringify(t.attributes)} ${t.stream}`).join(', ');
  ctx.log(`${what} on node(s) ${nodes.join(',')} (${why}) for ${ctx.settings.networkFaultMs} ms`);
  try {
    await sleep(ctx.settings.networkFaultMs);
  } finally {
    await proxy.reset();
  }
  ctx.log('toxics removed');
  return 0;
}

/**
 * The node to kill in a coordinator cycle: the active controller when it also coordinates the
 * service's group or a replica's transactions, else the group's coordinator (named with the
 * roles it holds).
 */
async function coordinatorTarget(ctx: FaultContext): Promise<{ node: number; roles: string[] }> {
  const view = new ClusterView(ctx.kafka);
  const controller = await ctx.stack.activeController();
  const group = await view.groupCoordinator(`${ctx.prefix}.service`);
  const transactions = new Set<number>();
  for (let replica = 1; replica <= ctx.replicas.length; replica += 1)
    transactions.add(await view.transactionCoordinator(replicaTransactionalId(ctx.prefix, replica)));
  const rolesOf = (node: number): string[] => [
    ...(node === controller ? ['active controller'] : []),
    ...(node === group ? ['group coordinator'] : []),
    ...(transactions.has(node) ? ['transaction coordinator'] : []),
  ];
  const node = rolesOf(controller).length > 1 ? controller : group;
  return { node, roles: rolesOf(node) };
}

export const CLUSTER_SCENARIOS: readonly Scenario[] = [
  {
    name: 'coordinator-kills',
    cluster: 'only',
    description:
      'SIGKILL, cycle after cycle, of the node that coordinates the group (the active controller when it coordinates too), until --kill-cycles kills hit the active controller as it coordinates; down, then started again',
    async fault(ctx) {
      let kills = 0;
      // Kills of the active controller while it coordinates the group or a replica's
      // transactions: the cycles go on until --kill-cycles of them (at most twice as many kills
      // in all), since after some kills the controller coordinates nothing.
      let controllerKills = 0;
      for (
        let cycle = 1;
        controllerKills < ctx.settings.killCycles && cycle <= 2 * ctx.settings.killCycles;
        cycle += 1
      ) {
        const { node, roles } = await coordinatorTarget(ctx);
        kills += await killNode(ctx, node, `cycle ${cycle}: ${roles.join(', ')}`);
        if (roles.includes('active controller') && roles.length > 1) controllerKills += 1;
        // Each kill hits a service in its steady state: outcomes flowing again for a while, so
        // that each kill's stall is its own, not the tail of the one before.
        await steadyOutcomes(ctx);
      }
      ctx.log(`${controllerKills} of ${kills} kills hit the active controller as it coordinated`);
      return kills;
    },
  },
  {
    name: 'leader-kill',
    cluster: 'only',
    description: 'SIGKILL of the broker leading most request partitions; started again later',
    async fault(ctx) {
      const node = await new ClusterView(ctx.kafka).busiestLeader(requestTopic(ctx));
      return killNode(ctx, node, 'leader of the busiest request partitions');
    },
  },
  {
    name: 'coordinator-kill',
    cluster: 'only',
    description: "SIGKILL of the broker coordinating a replica's transactions; started again later",
    async fault(ctx) {
      return killNode(ctx, await coordinatorNode(ctx), 'transaction coordinator of replica-1');
    },
  },
  {
    name: 'controller-kill',
    cluster: 'only',
    description: 'SIGKILL of the active KRaft controller (a combined node); started again later',
    async fault(ctx) {
      return killNode(ctx, await ctx.stack.activeController(), 'active controller');
    },
  },
  {
    name: 'rolling-brokers',
    cluster: 'only',
    description: 'each broker in turn stopped with SIGTERM and started again, waiting for in-sync replicas',
    async fault(ctx) {
      const view = new ClusterView(ctx.kafka);
      for (const node of ctx.stack.nodeIds) {
        await ctx.stack.kill(nodePart(node), 'SIGTERM');
        ctx.markFault();
        ctx.log(`node ${node} stopped (SIGTERM)`);
        await ctx.stack.up();
        await waitInSync(ctx, view);
        ctx.log(`node ${node} back and in sync`);
      }
      return ctx.stack.nodeIds.length;
    },
  },
  {
    name: 'endtxn-delay',
    cluster: 'only',
    description:
      "latency past the request timeout on the connections to a replica's transaction coordinator (a delayed EndTxn)",
    async fault(ctx) {
      const node = await coordinatorNode(ctx);
      return withToxic(
        ctx,
        [node],
        [
          {
            name: 'delay',
            type: 'latency',
            stream: 'upstream',
            attributes: { latency: CHAOS_REQUEST_TIMEOUT_MS + 2_000, jitter: 500 },
          },
        ],
        'transaction coordinator of replica-1',
      );
    },
  },
  {
    name: 'blackhole',
    cluster: 'only',
    description:
      'the broker leading most request partitions unreachable from clients (data dropped, connections held)',
    async fault(ctx) {
      const node = await new ClusterView(ctx.kafka).busiestLeader(requestTopic(ctx));
      return withToxic(
        ctx,
        [node],
        [{ name: 'blackhole', type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } }],
        'leader of the busiest request partitions',
      );
    },
  },
  {
    name: 'connection-reset',
    cluster: 'only',
    description:
      "connections to a replica's transaction coordinator reset 1 s after they open, mid-transaction",
    async fault(ctx) {
      const node = await coordinatorNode(ctx);
      return withToxic(
        ctx,
        [node],
        [{ name: 'reset', type: 'reset_peer', stream: 'upstream', attributes: { timeout: 1_000 } }],
        'transaction coordinator of replica-1',
      );
    },
  },
  {
    name: 'bandwidth',
    cluster: 'only',
    description: 'every broker connection throttled to 32 KB/s each way',
    fault: (ctx) =>
      withToxic(
        ctx,
        ctx.stack.nodeIds,
        [
          { name: 'bandwidth-up', type: 'bandwidth', stream: 'upstream', attributes: { rate: 32 } },
          { name: 'bandwidth-down', type: 'bandwidth', stream: 'downstream', attributes: { rate: 32 } },
        ],
        'all nodes',
      ),
  },
  {
    name: 'zombie',
    cluster: 'also',
    description: 'a replica frozen (SIGSTOP) past its session timeout, thawed after its partitions moved on',
    async fault(ctx) {
      const zombie = ctx.replicas[0];
      if (zombie === undefined) return 0;
      zombie.freeze();
      ctx.markFault();
      ctx.log(`${zombie.name} frozen for ${ctx.settings.zombieMs} ms`);
      await sleep(ctx.settings.zombieMs);
      zombie.thaw();
      ctx.log(`${zombie.name} thawed`);
      return 0;
    },
  },
];
