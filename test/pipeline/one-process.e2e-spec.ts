import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type GroundTruth, type RunningSimulator } from '../../apps/simulator/src';
import { simIndexerEnv, waitFor } from '../indexer/indexer-harness';
import { freePort, getJson, healthy as isHealthy, startMain as startApp, type Started } from './support/app-process';

/**
 * THE WHOLE PIPELINE, AS A USER RUNS IT: `npm start`'s entry point (apps/main) as its own process,
 * with no DATABASE_URL and no broker (embedded Postgres, Postgres event log), pointed at the
 * simulated cluster. Over HTTP only, the API must end up telling the simulator's ground truth:
 * every pool with its tokens and vault balances, swap counts and fee atoms to the atom, volume to
 * the last quote atom, every midprice update through the raw cursor. Then SIGTERM stops it cleanly
 * (exit 0), a second start reuses the data, and a start after `kill -9` (its embedded Postgres left
 * running) comes up on the same data too.
 */

const HISTORY_END_MS = 1_760_000_000_000;
const Q32 = 2n ** 32n;

let sim: RunningSimulator;
let dataDir: string;
let pgPort: number;
let apiPort: number;
const children: ChildProcess[] = [];

/** `npm start` without the build step, on a fresh machine: no services configured (CI sets both for the other tests). */
function startMain(): Started {
  return startApp(
    {
      ...simIndexerEnv(sim, { INDEXER_POLL_MS: '200' }),
      PG_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      POOL_LIST_REFRESH_MS: '200',
    },
    children,
  );
}

/** The data directory has no running server; if it has, the failure shows what the process said. */
function expectEmbeddedStopped(started: Started): void {
  const running = existsSync(join(dataDir, 'postmaster.pid'));
  const said = started
    .output()
    .split('\n')
    .filter((l) => l.includes('embedded postgres'));
  expect({ running, said }).toEqual({ running: false, said: expect.arrayContaining([expect.stringContaining('embedded postgres: stopped')]) });
}

const get = <T>(path: string) => getJson<T>(apiPort, path);
const healthy = () => isHealthy(apiPort);

interface PoolJson {
  address: string;
  name: string;
  token_x: { address: string; symbol: string; decimals: number };
  token_y: { address: string; symbol: string; decimals: number };
  token_x_amount: number;
  token_y_amount: number;
  pool_config: { authority: string; quoting_authority: string; pool_state: string };
}
interface FeesJson {
  totals: { volume_usd: number; swap_count: number; protocol_fee_x_raw: number; protocol_fee_y_raw: number };
  truncated: boolean;
}
interface MidpriceJson {
  next_cursor: number | null;
  data: { timestamp: number; slot: number; midprice: number; signature: string | null }[];
}

async function allPools(cluster: string): Promise<PoolJson[]> {
  const { body } = await get<{ data: PoolJson[] }>(`/pools?cluster=${cluster}&page_size=100`);
  return body.data;
}

/** What the API must say of a pool, from the simulator's record of what it generated. */
function expectedPool(gt: GroundTruth, address: string) {
  const pool = gt.pools.find((p) => p.config === address)!;
  const changes = gt.vault_balance_changes.filter((c) => c.pool_config === address).sort((a, b) => a.slot - b.slot || a.tx_index - b.tx_index);
  const last = changes[changes.length - 1];
  const swaps = gt.swaps.filter((s) => s.pool_config === address);
  const midpriceUpdates = gt.oracle_updates.filter((u) => u.pool_config_via_registry === address && u.midprice_q32 !== null);
  // A pool that exists from genesis got its first midprice from no transaction: until an update sets
  // one, no indexer can know it, and a sell without a midprice has no quote value (DESIGN §4 rule in
  // the projector's README). Every other swap is valued at the ground truth's midprice in effect.
  const firstKnown = pool.created_signature === null ? midpriceUpdates[0] : undefined;
  const unpriced = (s: GroundTruth['swaps'][number]) =>
    firstKnown !== undefined &&
    (s.slot < firstKnown.slot ||
      (s.slot === firstKnown.slot &&
        (s.tx_index < firstKnown.tx_index ||
          (s.tx_index === firstKnown.tx_index && s.instruction_location.top_level_index < firstKnown.instruction_location.top_level_index))));
  let volumeQ32 = 0n;
  for (const s of swaps) {
    if (s.side === 'buy') volumeQ32 += BigInt(s.amount_in) * Q32;
    else if (!unpriced(s)) volumeQ32 += BigInt(s.amount_in) * BigInt(s.midprice_q32);
  }
  return {
    pool,
    vaultX: last ? BigInt(last.vault_x_after) : 0n,
    vaultY: last ? BigInt(last.vault_y_after) : 0n,
    state: pool.state_history[pool.state_history.length - 1].state_name,
    swapCount: swaps.length,
    feeX: swaps.filter((s) => s.side === 'sell').reduce((a, s) => a + BigInt(s.protocol_fee_raw), 0n),
    feeY: swaps.filter((s) => s.side === 'buy').reduce((a, s) => a + BigInt(s.protocol_fee_raw), 0n),
    volume: Number(volumeQ32) / Number(Q32) / 10 ** pool.decimals_y,
    midpriceUpdates,
  };
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 'one-process-e2e', pools: 4, historySeconds: 240, historyEndTimeMs: HISTORY_END_MS, live: false });
  dataDir = mkdtempSync(join(tmpdir(), 'hadron-one-process-'));
  [pgPort, apiPort] = [await freePort(), await freePort()];
}, 120_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // A run killed with -9 leaves its embedded Postgres up: a last clean start/stop would own it; here just stop it.
  if (existsSync(join(dataDir, 'postmaster.pid'))) {
    const last = startMain();
    await waitFor('cleanup start', healthy, 60_000, 200).catch(() => undefined);
    last.child.kill('SIGTERM');
    await last.exited;
  }
  await sim?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

it('serves the ground truth over HTTP, stops cleanly on SIGTERM, and restarts on its data (also after kill -9)', async () => {
  // ---- first start: a fresh data directory ----
  const first = startMain();
  await waitFor('GET /health = 200', healthy, 90_000, 200);
  expect(first.output()).toContain('embedded postgres: initialising data directory');

  for (const cluster of ['mainnet-beta', 'devnet'] as const) {
    const gt = sim.groundTruth(cluster);
    // The backfill is done when every pool's fee report counts all of its swaps.
    await waitFor(
      `${cluster}: every pool and swap served`,
      async () => {
        const pools = await allPools(cluster);
        if (pools.length !== gt.pools.length) return false;
        for (const p of pools) {
          const want = expectedPool(gt, p.address);
          const { body } = await get<FeesJson>(`/pools/${p.address}/fees?interval=all&cluster=${cluster}`);
          if (body.totals.swap_count !== want.swapCount) return false;
          // Projections advance independently: also wait for the pool snapshot's last balances.
          if (BigInt(p.token_x_amount) !== want.vaultX || BigInt(p.token_y_amount) !== want.vaultY) return false;
        }
        return true;
      },
      90_000,
      250,
    );

    const pools = await allPools(cluster);
    expect(pools.map((p) => p.address).sort()).toEqual(gt.pools.map((p) => p.config).sort());
    for (const p of pools) {
      const want = expectedPool(gt, p.address);
      expect({
        name: p.name,
        x: [p.token_x.address, p.token_x.symbol, p.token_x.decimals],
        y: [p.token_y.address, p.token_y.symbol, p.token_y.decimals],
        amounts: [BigInt(p.token_x_amount), BigInt(p.token_y_amount)],
        authority: p.pool_config.authority,
        quoting: p.pool_config.quoting_authority,
        state: p.pool_config.pool_state,
      }).toEqual({
        name: `${want.pool.symbol_x}/${want.pool.symbol_y}`,
        x: [want.pool.mint_x, want.pool.symbol_x, want.pool.decimals_x],
        y: [want.pool.mint_y, want.pool.symbol_y, want.pool.decimals_y],
        amounts: [want.vaultX, want.vaultY],
        authority: want.pool.authority,
        quoting: want.pool.quoting_authority,
        state: want.state,
      });

      const fees = (await get<FeesJson>(`/pools/${p.address}/fees?interval=all&cluster=${cluster}`)).body;
      expect([fees.totals.swap_count, BigInt(fees.totals.protocol_fee_x_raw), BigInt(fees.totals.protocol_fee_y_raw), fees.truncated]).toEqual([
        want.swapCount,
        want.feeX,
        want.feeY,
        false,
      ]);
      expect(Math.abs(fees.totals.volume_usd - want.volume)).toBeLessThanOrEqual(1e-9 * Math.max(1, want.volume));

      // Daily volume over the whole history adds up to the same total.
      const first = gt.swaps[0]?.block_time ?? HISTORY_END_MS / 1000;
      const days = await get<{ data: { volume: number }[] }>(
        `/pools/${p.address}/volume/history?cluster=${cluster}&start_time=${first - 86_400}&end_time=${Math.floor(HISTORY_END_MS / 1000)}`,
      );
      expect(days.status).toBe(200);
      const daily = days.body.data.reduce((a, d) => a + d.volume, 0);
      expect(Math.abs(daily - want.volume)).toBeLessThanOrEqual(1e-9 * Math.max(1, want.volume));

      // Walking the raw cursor returns every midprice update once, newest first.
      const seen: MidpriceJson['data'] = [];
      let cursor: number | null = null;
      const end = Math.floor(HISTORY_END_MS / 1000) + 60;
      do {
        const page: MidpriceJson = (
          await get<MidpriceJson>(
            `/pools/${p.address}/midprice/history?cluster=${cluster}&timeframe=raw&limit=50&start_time=0&end_time=${end}${cursor === null ? '' : `&cursor=${cursor}`}`,
          )
        ).body;
        seen.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor !== null);
      const truth = [...want.midpriceUpdates].reverse();
      expect(seen.map((d) => d.signature)).toEqual(truth.map((u) => u.signature));
      expect(seen.map((d) => [d.timestamp, d.slot])).toEqual(truth.map((u) => [u.block_time, u.slot]));
    }
  }

  const before = await allPools('mainnet-beta');
  first.child.kill('SIGTERM');
  expect(await first.exited).toBe(0);
  expect(first.output()).toContain('stopped cleanly');
  expectEmbeddedStopped(first); // its embedded Postgres stopped too

  // ---- second start: same data, nothing re-initialised, the pools are there from the first answer ----
  const second = startMain();
  await waitFor('GET /health = 200 after restart', healthy, 90_000, 200);
  expect(second.output()).not.toContain('initialising data directory');
  await waitFor('pool list loaded', async () => (await allPools('mainnet-beta')).length === before.length, 10_000, 100);
  expect(await allPools('mainnet-beta')).toEqual(before);

  // ---- kill -9: the embedded Postgres outlives it; the next start takes the data over ----
  second.child.kill('SIGKILL');
  await second.exited;
  const third = startMain();
  await waitFor('GET /health = 200 after kill -9', healthy, 90_000, 200);
  await waitFor('pool list loaded', async () => (await allPools('mainnet-beta')).length === before.length, 10_000, 100);
  expect(await allPools('mainnet-beta')).toEqual(before);
  third.child.kill('SIGTERM');
  expect(await third.exited).toBe(0);
  expectEmbeddedStopped(third); // the adopted server too: nothing outlives the processes using it
}, 420_000);
