import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { HadronEvent } from '@hadron/contracts';
import { inTransaction, type DeliveredEvent, type RawLogRecord, type SqlTx } from '@hadron/platform';
import type { TestDatabase } from '@hadron/platform/testing/test-database';
import { BuildRegistry } from '../src/builds/build-registry';
import { ALL_PROJECTIONS } from '../src/projections';
import { quoteIdent } from '../src/sql/identifiers';
import { generateEvents, generateRecords, POISON_DECODER, type GeneratorOptions } from './event-generator';
import { checksumBuild, type TableChecksum } from './read-checksum';

/** What a log adapter provides to run the projector's kill/restart test. */
export interface ProjectorLogHarness {
  /** The read database (migrated with the event log and projector sets). */
  db: TestDatabase;
  /** Bulk-appends records to the log under test, in order (with the adapter's semantics for repeated ids). */
  append(records: readonly RawLogRecord[]): Promise<void>;
  /** Environment that makes projector-child.ts open this log (DATABASE_URL is added). */
  childEnv: Record<string, string>;
  close(): Promise<void>;
}

export interface KillRestartOptions {
  events: number;
  kills: number;
  /** Log progress lines (stderr) while it runs. */
  verbose?: boolean;
}

const ROOT = resolve(__dirname, '../../..');

/**
 * Reliability rule (DESIGN §7): the projector is SIGKILLed at random points several times while
 * it consumes a large generated log, restarted each time, and the read tables it ends with must be
 * identical (checksum of every table, the 24 h stats included: the children's clock is pinned) to
 * a clean single application of the same events. The log holds exact copies of events (Kafka
 * re-appends; the Postgres log keeps one by id) and poison events, which must be dead-lettered by
 * exactly the groups whose projection reads their type. The database starts on the migration's
 * v1 builds, so the children also upgrade swaps and midprice in place while being killed. One
 * child process per projection, as they scale independently; each is killed independently. The
 * same body runs on any log adapter through `makeHarness`.
 */
export function projectorKillRestartContract(adapter: string, makeHarness: () => Promise<ProjectorLogHarness>, opts: KillRestartOptions): void {
  describe(`projector kill -9 / restart over the ${adapter} log`, () => {
    let h: ProjectorLogHarness;
    const gen: GeneratorOptions = { events: opts.events, poolsPerCluster: 20, seed: 2026, duplicates: true, poison: true };
    // Inside the generated history (block times start at 1_760_000_000, ~0.02 s per event per busy pool).
    const NOW = 1_760_000_000 + Math.round(opts.events * 0.02);
    const say = (s: string) => opts.verbose && process.stderr.write(`[kill-restart ${adapter}] ${s}\n`);

    beforeAll(async () => {
      h = await makeHarness();
    });
    afterAll(async () => {
      killLeftovers();
      await h?.close();
    });

    it(`ends with read tables identical to a clean run after ${opts.kills} kills while consuming ${opts.events.toLocaleString('en-US')} events`, async () => {
      const started = Date.now();
      for (const chunk of generateRecords(gen, 50_000)) await h.append(chunk);
      say(`appended ${opts.events} events in ${((Date.now() - started) / 1000).toFixed(1)}s`);

      const env = { ...process.env, ...h.childEnv, DATABASE_URL: h.db.url, BATCH: '5000', LAG_EVERY_MS: '2000', NOW_SEC: String(NOW) };
      const names = ALL_PROJECTIONS.map((p) => p.name);
      let kills = 0;
      for (let round = 0; round < opts.kills; round++) {
        const children = await Promise.all(names.map((p) => startChild({ ...env, PROJECTIONS: p })));
        const window = 1500 + Math.random() * 4000;
        await Promise.all(
          children.map(async (c) => {
            await sleep(window + Math.random() * 1000);
            c.child.kill('SIGKILL');
            await exited(c.child);
            kills++;
          }),
        );
        say(`round ${round + 1}: killed ${names.length} children after ~${Math.round(window)} ms (${((Date.now() - started) / 1000).toFixed(0)}s)`);
      }
      const finals = await Promise.all(names.map((p) => startChild({ ...env, PROJECTIONS: p })));
      await Promise.all(finals.map((c) => c.caughtUp(600_000)));
      say(`caught up after ${((Date.now() - started) / 1000).toFixed(0)}s`);
      const registry = new BuildRegistry(h.db.pool);
      // One more 24 h refresh by the pools child, begun after every projection caught up.
      const caughtUpAt = (await h.db.pool.query<{ t: Date }>('SELECT now() AS t')).rows[0].t;
      const poolsSchema = quoteIdent((await registry.active('pools'))!.schemaName);
      for (let i = 0; ; i++) {
        const { rows } = await h.db.pool.query<{ ok: boolean }>(`SELECT max(refreshed_at) > $1 AS ok FROM ${poolsSchema}.pool_stats_24h`, [caughtUpAt]);
        if (rows[0].ok) break;
        if (i > 300) throw new Error('no 24 h refresh after the projections caught up');
        await sleep(100);
      }
      for (const c of finals) c.child.kill('SIGTERM');
      expect(await Promise.all(finals.map((c) => exited(c.child)))).toEqual(names.map(() => 0)); // drained, exited cleanly

      const active = await Promise.all(ALL_PROJECTIONS.map(async (def) => (await registry.active(def.name))!));
      expect(active.map((b) => [b.projection, b.version])).toEqual(ALL_PROJECTIONS.map((def) => [def.name, def.schema.version])); // upgraded in place
      const killed: Record<string, TableChecksum> = {};
      for (const [i, def] of ALL_PROJECTIONS.entries()) Object.assign(killed, await checksumBuild(h.db.pool, def, active[i].schemaName, { pinnedClock: true }));

      // The clean run: each event applied once, in order, into fresh builds (batches of another
      // size), without the copies and without the poison events; then one 24 h refresh at NOW.
      const builds = await Promise.all(ALL_PROJECTIONS.map((def) => registry.create(def)));
      const handlers = ALL_PROJECTIONS.map((def, i) => def.createHandler(quoteIdent(builds[i].schemaName)));
      let batch: DeliveredEvent[] = [];
      const flush = async () => {
        await inTransaction(h.db.pool, async (client) => {
          for (const handler of handlers) await handler(batch, client as unknown as SqlTx);
        });
        batch = [];
      };
      const seen = new Set<string>();
      const poison: HadronEvent[] = [];
      let offset = 0n;
      for (const event of generateEvents(gen)) {
        if (event.decoderVersion === POISON_DECODER) poison.push(event);
        if (event.decoderVersion === POISON_DECODER || seen.has(event.id)) continue;
        seen.add(event.id);
        batch.push({ event, position: { stream: 'clean', partition: 0, offset: offset++ } });
        if (batch.length === 7919) await flush();
      }
      if (batch.length) await flush();
      // The 24 h stats read the served swaps rollups (`read` views), compared equal below.
      const refreshing = await h.db.pool.connect();
      try {
        await ALL_PROJECTIONS.find((d) => d.name === 'pools')!.refresh!(
          refreshing as unknown as SqlTx,
          quoteIdent(builds[ALL_PROJECTIONS.findIndex((d) => d.name === 'pools')].schemaName),
          NOW,
        );
      } finally {
        refreshing.release();
      }
      const clean: Record<string, TableChecksum> = {};
      for (const [i, def] of ALL_PROJECTIONS.entries()) Object.assign(clean, await checksumBuild(h.db.pool, def, builds[i].schemaName, { pinnedClock: true }));
      say(`compared in ${((Date.now() - started) / 1000).toFixed(0)}s: ${JSON.stringify(killed)}`);

      expect(kills).toBe(opts.kills * names.length);
      expect(killed).toEqual(clean);
      expect(Object.values(clean).every((t) => t.rows > 0)).toBe(true);
      // Each poison event is dead-lettered once by every served group whose projection reads its type; nothing else is.
      expect(poison.length).toBeGreaterThan(1);
      const { rows: dead } = await h.db.pool.query<{ group_id: string; event_id: string }>(
        'SELECT group_id, event_id FROM event_dead_letter WHERE group_id = ANY($1::text[]) ORDER BY group_id, event_id',
        [active.map((b) => b.consumerGroup)],
      );
      const expected = ALL_PROJECTIONS.flatMap((def, i) =>
        poison.filter((e) => !def.eventTypes || def.eventTypes.includes(e.type)).map((e) => ({ group_id: active[i].consumerGroup, event_id: e.id })),
      ).sort((a, b) => (a.group_id + a.event_id < b.group_id + b.event_id ? -1 : 1));
      expect([...dead].sort((a, b) => (a.group_id + a.event_id < b.group_id + b.event_id ? -1 : 1))).toEqual(expected);
    }, 900_000);
  });
}

interface Child {
  child: ChildProcess;
  caughtUp(timeoutMs: number): Promise<void>;
}

/** Every child started, so that none outlives its test (a failed wait would otherwise leave it consuming, and loading the machine, forever). */
const started = new Set<ChildProcess>();

/** SIGKILLs every child still running (afterAll: also after a failure). */
function killLeftovers(): void {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  started.clear();
}

async function startChild(env: NodeJS.ProcessEnv): Promise<Child> {
  const child = spawn(process.execPath, ['-r', './scripts/register-ts.js', 'apps/projector/test-support/projector-child.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.add(child);
  let err = '';
  let out = '';
  let done = false;
  const waiters: Array<() => void> = [];
  child.stderr!.on('data', (d) => (err += d));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      const p = JSON.parse(line) as { lag: string; active: boolean };
      if (p.lag === '0' && p.active) {
        done = true;
        waiters.splice(0).forEach((w) => w());
      }
    }
  });
  await new Promise<void>((ready, fail) => {
    const onData = (d: Buffer) => d.toString().includes('ready') && (child.stdout!.off('data', onData), ready());
    child.stdout!.on('data', onData);
    child.once('exit', (code) => fail(new Error(`projector child exited early (${code}): ${err}`)));
  });
  return {
    child,
    caughtUp: (timeoutMs) =>
      done
        ? Promise.resolve()
        : new Promise<void>((ok, fail) => {
            const t = setTimeout(() => fail(new Error(`projector child not caught up after ${timeoutMs} ms: ${err}`)), timeoutMs);
            waiters.push(() => (clearTimeout(t), ok()));
          }),
  };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
