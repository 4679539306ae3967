import { createLogger } from '@hadron/platform';
import { startIndexer, type RunningIndexer } from '../../apps/indexer/src/index';
import { caughtUp, compareWithGroundTruth, readEventLog, simIndexerConfig, storageOf, useSimulatedCluster, waitFor } from './indexer-harness';

/**
 * FENCED TAKEOVER: the active indexer's lock connection is terminated (pg_terminate_backend, as a
 * failover, a pooler or an operator would) while it backfills and a standby runs for the same
 * cluster. The process survives, stops appending, and stands by; the standby takes over; and the
 * Postgres log shows that the two never appended at the same time: in log order, the writer epoch
 * (the lease epoch each append was fenced by) never goes down. The log still equals the ground truth.
 */

const fx = useSimulatedCluster({ seed: 'fenced-takeover', pools: 5, historySeconds: 300 });

it('a lost lock connection hands the cluster to the standby; the two never append at once', async () => {
  const cluster = 'devnet';
  const env = { INDEXER_CLUSTERS: cluster, INDEXER_CHUNK_TXS: '40', INDEXER_REFRESH_SECONDS: '3600' };
  const first = await startIndexer(storageOf(fx.db), simIndexerConfig(fx.sim, env), createLogger('first', process.env.TEST_LOG_LEVEL ?? 'error'));
  fx.indexer = first;
  let standby: RunningIndexer | undefined;
  try {
    await waitFor('the first indexer to hold the cluster', () => first.status()[0].active, 10_000, 20);
    standby = await startIndexer(storageOf(fx.db), simIndexerConfig(fx.sim, env), createLogger('standby', process.env.TEST_LOG_LEVEL ?? 'error'));
    expect(standby.status()[0].active).toBe(false);
    const logged = async () => Number((await fx.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM event_log WHERE cluster = $1', [cluster])).rows[0].n);
    // Mid-backfill: some chunks appended, more to come.
    await waitFor('the first appends', async () => (await logged()) > 50, 30_000, 5);
    const { rows } = await fx.db.pool.query<{ pid: number }>('SELECT pg_terminate_backend(pid) AS ok, pid FROM pg_stat_activity WHERE application_name = $1', [`hadron-indexer-lock:${cluster}`]);
    expect(rows).toHaveLength(1);
    const before = await logged();

    await waitFor('the standby to take over', () => standby!.status()[0].active, 10_000, 20);
    expect(first.status()[0].active).toBe(false); // alive, standing by
    fx.sim.advance('all', 20);
    await waitFor('caught up after the takeover', () => caughtUp(fx.db, fx.sim, cluster), 60_000, 200);
    expect(first.status()[0].active).toBe(false);

    const { rows: log } = await fx.db.pool.query<{ writer_epoch: string | null }>('SELECT writer_epoch FROM event_log WHERE cluster = $1 ORDER BY seq', [cluster]);
    const epochs = log.map((r) => (r.writer_epoch === null ? null : BigInt(r.writer_epoch)));
    expect(epochs).not.toContain(null);
    // Non-decreasing in log order: after the first event of epoch N+1 no event of epoch N appears.
    const backwards = epochs.findIndex((e, i) => i > 0 && e! < epochs[i - 1]!);
    expect(backwards).toBe(-1);
    const distinct = [...new Set(epochs.map(String))];
    expect(distinct.length).toBeGreaterThanOrEqual(2); // the first holder's, then the standby's
    const lease = await fx.db.pool.query<{ epoch: string }>('SELECT epoch FROM indexer.lease WHERE cluster = $1', [cluster]);
    expect(distinct[distinct.length - 1]).toBe(lease.rows[0].epoch);
    // eslint-disable-next-line no-console
    console.log(JSON.stringify({ beforeKill: before, total: epochs.length, epochs: distinct.map((e) => [e, epochs.filter((x) => String(x) === e).length]) }));

    const cmp = compareWithGroundTruth(await readEventLog(fx.db, cluster), fx.sim.groundTruth(cluster));
    expect(cmp.mismatches).toEqual([]);
  } finally {
    await standby?.stop();
  }
}, 180_000);
