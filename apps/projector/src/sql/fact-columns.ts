import type { HadronEvent } from '@hadron/contracts';
import { copyField } from '@hadron/platform/database/copy-from';
import type { ChainPosition } from '@hadron/domain';
import { effectiveTime } from '../projections/event-checks';
import { numberArray, textArray } from './pg-array';

/**
 * The identity and chain-position columns every fact row starts with, as parallel arrays for one
 * `unnest`: id, cluster, pool, ts, block_time, slot, tx_index, ix_index, inner_index, signature
 * (parameters $1 … $10, in that order).
 */
export class FactColumns {
  private readonly id: string[] = [];
  private readonly cluster: string[] = [];
  private readonly pool: string[] = [];
  private readonly ts: number[] = [];
  private readonly blockTime: (number | null)[] = [];
  private readonly slot: number[] = [];
  private readonly tx: number[] = [];
  private readonly ix: number[] = [];
  private readonly inner: number[] = [];
  private readonly signature: (string | null)[] = [];

  get size(): number {
    return this.id.length;
  }

  push(e: HadronEvent, pos: ChainPosition): void {
    this.id.push(e.id);
    this.cluster.push(e.cluster);
    this.pool.push(e.pool);
    this.ts.push(effectiveTime(e));
    this.blockTime.push(e.blockTime);
    this.slot.push(pos.slot);
    this.tx.push(pos.txIndex);
    this.ix.push(pos.ixIndex);
    this.inner.push(pos.innerIndex);
    this.signature.push(e.signature);
  }

  /** The columns as arrays, in FACT_COLUMN_TYPES' order (for a StagingTable). */
  columns(): (string | number | null)[][] {
    return [this.id, this.cluster, this.pool, this.ts, this.blockTime, this.slot, this.tx, this.ix, this.inner, this.signature];
  }

  params(): string[] {
    const [t, n] = [textArray, numberArray];
    return [t(this.id), t(this.cluster), t(this.pool), n(this.ts), n(this.blockTime), n(this.slot), n(this.tx), n(this.ix), n(this.inner), t(this.signature)];
  }
}

/**
 * One fact's identity and chain-position columns as COPY text, in FACT_COLUMN_TYPES' order, each
 * followed by its tab: the start of a fact's staging row written directly (as FactColumns.columns()
 * and `stagedText` would write it).
 */
export function factFields(e: HadronEvent, pos: ChainPosition): string {
  const f = copyField;
  return `${f(e.id)}\t${f(e.cluster)}\t${f(e.pool)}\t${effectiveTime(e)}\t${f(e.blockTime)}\t${pos.slot}\t${pos.txIndex}\t${pos.ixIndex}\t${pos.innerIndex}\t${f(e.signature)}\t`;
}

/** The fact columns' names and SQL types, in order (the types their `unnest` input casts to). */
export const FACT_COLUMN_TYPES: readonly (readonly [string, string])[] = [
  ['id', 'text'],
  ['cluster', 'text'],
  ['pool', 'text'],
  ['ts', 'int8'],
  ['block_time', 'int8'],
  ['slot', 'int8'],
  ['tx_index', 'int4'],
  ['ix_index', 'int4'],
  ['inner_index', 'int4'],
  ['signature', 'text'],
];
