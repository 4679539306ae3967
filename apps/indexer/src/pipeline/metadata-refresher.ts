import type { ClusterRuntime } from './cluster-runtime';
import { EventBuilder, type ObservationPosition } from './event-builder';
import { tokenRenames } from './metadata-refresh';

/** A metadata refresh that failed is tried again after this long (or the interval, when shorter). */
const METADATA_RETRY_MS = 30_000;
/** Renames named in one log line (the rest are counted). */
const LOGGED_RENAMES = 5;

/** The token metadata of known pools, read again now and then (tokenRenames decides what changed). */
export class MetadataRefresher {
  /** Token metadata of the known pools is read again from then on (at start: at once). */
  private dueAt = 0;

  constructor(private readonly rt: ClusterRuntime) {}

  due(): boolean {
    return this.rt.now() >= this.dueAt;
  }

  /**
   * Token metadata of every known pool, read again (at start, then every metadataRefreshMs): a
   * token whose name, symbol or curated icon now reads differently gets a TokenMetadataChanged per
   * pool holding it, appended before the pools' records take the new tokens (later snapshots carry
   * them). A crash in between reads again at the restart and appends the rename again — harmless,
   * the projection sets the same names. A failed read is retried; it never holds the cursor.
   */
  async refresh(): Promise<void> {
    const pools = [...this.rt.state.progress.pools.values()];
    this.dueAt = this.rt.now() + this.rt.d.settings.metadataRefreshMs;
    if (pools.length === 0) return;
    try {
      const read = await this.rt.d.reader.tokenMetadata(
        pools.flatMap((p) => [p.static.mintX, p.static.mintY]),
        this.rt.state.progress.throughSlot ?? undefined,
      );
      const renames = tokenRenames(pools, read.tokens);
      if (renames.length === 0) return;
      const at: ObservationPosition = { slot: read.slot, blockTime: await this.rt.d.rpc.getBlockTime(read.slot), signature: null, txIndex: null };
      const builder = new EventBuilder(this.rt.cluster, this.rt.state.progress.pools);
      const events = renames.flatMap((r) => r.renamed.map((token) => builder.tokenMetadataChanged(r.pool, token, at)));
      await this.rt.fenced(async (db, epoch) => {
        await this.rt.d.sink.append(events, epoch);
        await this.rt.d.store.updatePoolTokens(
          this.rt.cluster,
          renames.map((r) => r.pool),
          db,
        );
      });
      for (const r of renames) this.rt.state.progress.pools.set(r.pool.static.config, r.pool);
      this.rt.observer.countEvents(events);
      const renamed = events.slice(0, LOGGED_RENAMES).map((e) => ({ pool: e.pool, mint: e.data.mint, symbol: e.data.symbol, name: e.data.name }));
      this.rt.log.info({ slot: read.slot, events: events.length, pools: renames.length, renamed }, 'token metadata changed: names updated');
    } catch (e) {
      if (this.rt.state.stopping) return;
      this.dueAt = this.rt.now() + Math.min(METADATA_RETRY_MS, this.rt.d.settings.metadataRefreshMs);
      this.rt.log.warn({ err: (e as Error).message, retryInMs: this.dueAt - this.rt.now() }, 'token metadata refresh failed; trying again later');
    }
  }
}
