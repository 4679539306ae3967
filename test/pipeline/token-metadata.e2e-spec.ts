import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GroundTruth } from '../../apps/simulator/src';
import { simIndexerEnv, waitFor } from '../indexer/indexer-harness';
import { getJson, healthy, simulatorAndDatabase, startMain, type Started } from './support/app-process';

/**
 * TOKEN METADATA AS THE CHAIN HOLDS IT, over HTTP. The real one-process app (`npm start`'s entry
 * point) indexes the simulated cluster, whose tokens cover every way a name is kept on chain: SPL
 * Token + Metaplex (exact and NUL-padded fields), Token-2022 with the metadata in the mint,
 * Token-2022 whose MetadataPointer names another account, and a mint with no metadata at all.
 * The expected names come from the simulator's ground truth and the shipped token list file —
 * nothing of the indexer's. Then:
 * - an UPGRADE: the data is rewritten to what the previous release stored (blank names: it read a
 *   wrong Metaplex program id) and the app restarted: the names fill in at once, with no replay;
 * - a RENAME on chain shows in the API within a refresh (INDEXER_METADATA_REFRESH_SECONDS=1);
 * - `query=` finds a pool by the fallback symbol of its nameless token.
 */

const HISTORY_END_MS = 1_760_000_000_000;
const HISTORY_SECONDS = 90;
/** The rename, the lifecycle and the late pool are placed over this span: past the history, so the rename happens in slots the test produces. */
const SCHEDULE_SECONDS = 300;
const CLUSTERS = ['mainnet-beta', 'devnet'] as const;
type Cluster = (typeof CLUSTERS)[number];

/** The curated list the app ships (a file, read as data). */
const LISTED = new Map(
  (
    JSON.parse(readFileSync(join(__dirname, '../../apps/indexer/src/tokens/known-tokens.json'), 'utf8')) as {
      tokens: { mint: string; symbol: string; name: string }[];
    }
  ).tokens.map((t) => [t.mint, t]),
);

interface TokenJson {
  address: string;
  symbol: string;
  name: string;
  decimals: number;
}
interface PoolJson {
  address: string;
  name: string;
  token_x: TokenJson;
  token_y: TokenJson;
}

const schedule = { scheduleSeconds: SCHEDULE_SECONDS };
const fx = simulatorAndDatabase({
  port: 0,
  seed: 'token-metadata-e2e',
  pools: 8,
  historySeconds: HISTORY_SECONDS,
  historyEndTimeMs: HISTORY_END_MS,
  live: false,
  clusters: { 'mainnet-beta': schedule, devnet: schedule },
});
const sim = () => fx.sim;
const db = () => fx.db;

function start(): Started {
  return startMain(
    {
      ...simIndexerEnv(sim(), { INDEXER_POLL_MS: '200', INDEXER_METADATA_REFRESH_SECONDS: '1' }),
      DATABASE_URL: db().url,
      PORT: String(fx.apiPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      POOL_LIST_REFRESH_MS: '200',
    },
    fx.children,
  );
}

async function stop(app: Started): Promise<void> {
  app.child.kill('SIGTERM');
  expect(await app.exited).toBe(0);
}

async function pools(cluster: Cluster, query = ''): Promise<PoolJson[]> {
  const { status, body } = await getJson<{ data: PoolJson[] }>(
    fx.apiPort,
    `/pools?cluster=${cluster}&page_size=100${query ? `&query=${encodeURIComponent(query)}` : ''}`,
  );
  expect(status).toBe(200);
  return body.data;
}

type TokenFact = GroundTruth['tokens'][number];

/** What GET /pools must show for a token: the list's names, else the chain's (ground truth), else the short mint. */
function shown(t: TokenFact): { symbol: string; name: string } {
  const listed = LISTED.get(t.mint);
  if (listed) return { symbol: listed.symbol, name: listed.name };
  const short = t.mint.slice(0, 4);
  const symbol = t.metadata_source === 'none' || t.symbol === '' ? short : t.symbol;
  const name = t.metadata_source === 'none' || t.name === '' ? symbol : t.name;
  return { symbol, name };
}

/** Every pool of the cluster, with its tokens as the API must show them now. */
function expectedPools(cluster: Cluster): { address: string; name: string; x: { symbol: string; name: string }; y: { symbol: string; name: string } }[] {
  const gt = sim().groundTruth(cluster);
  const tokens = new Map(gt.tokens.map((t) => [t.mint, t]));
  return gt.pools
    .map((p) => {
      const [x, y] = [shown(tokens.get(p.mint_x)!), shown(tokens.get(p.mint_y)!)];
      return { address: p.config, name: `${x.symbol}/${y.symbol}`, x, y };
    })
    .sort((a, b) => a.address.localeCompare(b.address));
}

async function servedPools(cluster: Cluster) {
  return (await pools(cluster))
    .map((p) => ({
      address: p.address,
      name: p.name,
      x: { symbol: p.token_x.symbol, name: p.token_x.name },
      y: { symbol: p.token_y.symbol, name: p.token_y.name },
    }))
    .sort((a, b) => a.address.localeCompare(b.address));
}

async function namesAsOnChain(): Promise<boolean> {
  for (const cluster of CLUSTERS) if (JSON.stringify(await servedPools(cluster)) !== JSON.stringify(expectedPools(cluster))) return false;
  return true;
}

/** Event types on the log, counted. */
async function logCounts(): Promise<Record<string, number>> {
  const { rows } = await db().pool.query<{ type: string; n: string }>(`SELECT payload::jsonb->>'type' AS type, count(*) AS n FROM event_log GROUP BY 1`);
  return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
}

/** What the previous release stored: the same data, every token the list does not name left blank (it read a wrong Metaplex program id). */
async function rewriteAsPreviousRelease(): Promise<number> {
  const blank = (t: { mint: string; symbol: string; name: string }) => (LISTED.has(t.mint) ? t : { ...t, symbol: '', name: '' });
  let blanked = 0;
  const { rows } = await db().pool.query<{ seq: string; payload: string }>(
    `SELECT seq, payload FROM event_log WHERE payload::jsonb->>'type' IN ('PoolDiscovered', 'PoolConfigChanged')`,
  );
  for (const r of rows) {
    const e = JSON.parse(r.payload);
    e.data.tokenX = blank(e.data.tokenX);
    e.data.tokenY = blank(e.data.tokenY);
    await db().pool.query('UPDATE event_log SET payload = $2 WHERE seq = $1', [r.seq, JSON.stringify(e)]);
  }
  const records = await db().pool.query<{
    cluster: string;
    config: string;
    record: { tokens: { x: TokenJson & { mint: string }; y: TokenJson & { mint: string } } };
  }>('SELECT cluster, config, record FROM indexer.pool');
  for (const r of records.rows) {
    const tokens = { x: blank(r.record.tokens.x), y: blank(r.record.tokens.y) };
    blanked += [r.record.tokens.x, r.record.tokens.y].filter((t) => !LISTED.has(t.mint) && (t.symbol !== '' || t.name !== '')).length;
    await db().pool.query(`UPDATE indexer.pool SET record = jsonb_set(record, '{tokens}', $3::jsonb) WHERE cluster = $1 AND config = $2`, [
      r.cluster,
      r.config,
      JSON.stringify(tokens),
    ]);
  }
  const { rows: builds } = await db().pool.query<{ schema_name: string }>(
    `SELECT schema_name FROM projector.projection_builds WHERE projection = 'pools' AND status = 'active'`,
  );
  const listed = [...LISTED.keys()];
  for (const side of ['x', 'y']) {
    await db().pool.query(
      `UPDATE "${builds[0].schema_name}".pools SET token_${side}_symbol = '', token_${side}_name = '' WHERE NOT (token_${side}_mint = ANY($1::text[]))`,
      [listed],
    );
  }
  return blanked; // tokens that had a name: each is a rename at the next start
}

const builds = async () =>
  (await db().pool.query('SELECT projection, build_id, version, schema_name, status FROM projector.projection_builds ORDER BY projection, build_id')).rows;

it('every kind of token metadata, an upgrade from blank names without replay, a rename on chain, and the fallback found by query', async () => {
  // The simulated chain holds every kind (else this test proves less than it says).
  for (const cluster of CLUSTERS) {
    const kinds = new Set(
      sim()
        .groundTruth(cluster)
        .tokens.map((t) => t.metadata_source),
    );
    expect([...kinds].sort()).toEqual(['metaplex', 'none', 'pointer', 'token-2022']);
  }

  // ---- first run: the names as the chain holds them ----
  const first = start();
  await waitFor('GET /health', () => healthy(fx.apiPort), 90_000, 200);
  await waitFor('every pool named as on chain', namesAsOnChain, 90_000, 250);
  expect(first.output()).not.toContain('token metadata changed'); // right at discovery: nothing to heal
  await stop(first);

  // ---- the previous release's data: blank names everywhere; the restart heals them, no replay ----
  expect((await logCounts()).TokenMetadataChanged ?? 0).toBe(0);
  const blanked = await rewriteAsPreviousRelease();
  expect(blanked).toBeGreaterThan(0);
  const buildsBefore = await builds();
  const second = start();
  await waitFor('GET /health after the upgrade', () => healthy(fx.apiPort), 90_000, 200);
  await waitFor('names healed after the upgrade', namesAsOnChain, 30_000, 250);
  expect(second.output()).toContain('token metadata changed: names updated');
  expect((await logCounts()).TokenMetadataChanged).toBe(blanked); // one per (pool, blank token)
  expect(await builds()).toEqual(buildsBefore); // the same builds serve: nothing replayed or rebuilt

  // ---- a nameless token: shown as its short mint, and found by it ----
  for (const cluster of CLUSTERS) {
    const gt = sim().groundTruth(cluster);
    const anon = gt.tokens.find((t) => t.metadata_source === 'none')!;
    const holding = gt.pools.filter((p) => p.mint_x === anon.mint || p.mint_y === anon.mint).map((p) => p.config);
    expect(holding.length).toBeGreaterThan(0);
    const found = await pools(cluster, anon.mint.slice(0, 4).toUpperCase());
    expect(found.map((p) => p.address).sort()).toEqual(expect.arrayContaining(holding.sort()));
    for (const p of found.filter((f) => holding.includes(f.address))) {
      const token = p.token_x.address === anon.mint ? p.token_x : p.token_y;
      expect([token.symbol, token.name, p.name.split('/').includes(anon.mint.slice(0, 4))]).toEqual([anon.mint.slice(0, 4), anon.mint.slice(0, 4), true]);
    }
  }

  // ---- a rename on chain, in slots produced now: the API follows within a refresh ----
  const renamedBefore = CLUSTERS.map(
    (c) =>
      sim()
        .groundTruth(c)
        .tokens.filter((t) => t.renames.length > 0).length,
  );
  expect(renamedBefore).toEqual([0, 0]);
  const tmcBefore = (await logCounts()).TokenMetadataChanged;
  sim().advance('all', Math.ceil(((SCHEDULE_SECONDS - HISTORY_SECONDS) * 1000) / 400)); // past every scheduled event
  for (const cluster of CLUSTERS) {
    const renamed = sim()
      .groundTruth(cluster)
      .tokens.filter((t) => t.renames.length > 0);
    expect(renamed.length).toBeGreaterThan(0);
  }
  await waitFor('the renamed tokens shown under their new names', namesAsOnChain, 30_000, 250);
  const renamedPools = CLUSTERS.flatMap((c) => {
    const gt = sim().groundTruth(c);
    const mints = new Set(gt.tokens.filter((t) => t.renames.length > 0).map((t) => t.mint));
    return gt.pools.filter((p) => mints.has(p.mint_x) || mints.has(p.mint_y));
  });
  expect((await logCounts()).TokenMetadataChanged - tmcBefore).toBe(renamedPools.length);
  await stop(second);
}, 420_000);
