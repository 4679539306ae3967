import { encodeInstruction, type DecodedHadronInstruction } from '@hadron/domain';
import type { StoredTx } from '../ledger/ledger';
import type { TopLevelInstruction } from '../ledger/transaction-executor';
import { SYSVAR_CLOCK } from '../spl/well-known';
import type { InstructionLocation, OracleUpdateFact } from './ground-truth';
import { HADRON_ERRORS } from './hadron-extra-instructions';
import { bigMax, readonly, SHAPE_RATES, signer, spreadFactor, writable, type MarketContext } from './market-context';
import { recordFailed, run } from './market-transactions';
import { oracleState } from './pool-accounts';
import type { PoolRuntime } from './pool-runtime';

/*
 * The price path: the quoting authority's oracle updates (tags 5, 10, 9), a random walk of the
 * midprice in ppm steps and of the spread; sometimes stale (failed), padded or CPI'd by a keeper.
 */

export interface PlannedOracleUpdate {
  tag: 5 | 9 | 10;
  ix: DecodedHadronInstruction;
  /** What is sent: the encoded instruction, sometimes with trailing bytes. */
  data: Uint8Array;
  sequence: bigint;
  /** The oracle's values after the update (the unchanged field carried over). */
  midprice: bigint;
  spread: bigint;
  /** A lower sequence: the program rejects it. */
  stale: boolean;
}

/** The next oracle update of a pool: its instruction, and the oracle it leaves (unless stale). */
export function planOracleUpdate(m: MarketContext, pool: PoolRuntime, stale: boolean): PlannedOracleUpdate {
  const tag = m.rng.weighted([
    [5, 0.7],
    [10, 0.25],
    [9, 0.05],
  ] as const);
  const o = pool.oracle;
  const step = m.rng.weighted([
    [1n, 0.93],
    [0n, 0.02],
    [BigInt(m.rng.int(2, 9)), 0.05],
  ] as const);
  const sequence = stale ? o.sequence - 1n : o.sequence + step;
  // A random walk in ppm steps, in integers so every platform draws the same prices.
  const drift = BigInt(m.rng.int(-350, 350));
  const midprice = tag === 9 ? o.midpriceQ32 : bigMax(1n, (o.midpriceQ32 * (1_000_000n + drift)) / 1_000_000n);
  const spread = tag === 5 ? o.spreadFactorQ32 : spreadFactor(m.rng.pick([0, 2, 3, 5, 7, 10, 15, 25]));
  const ix: DecodedHadronInstruction =
    tag === 5
      ? { tag, instruction: 'UpdateMidprice', sequence: sequence.toString(), midprice_q32: midprice.toString() }
      : tag === 9
        ? { tag, instruction: 'UpdateBaseSpread', sequence: sequence.toString(), spread_factor_q32: spread.toString() }
        : {
            tag,
            instruction: 'UpdateMidpriceAndBaseSpread',
            sequence: sequence.toString(),
            midprice_q32: midprice.toString(),
            spread_factor_q32: spread.toString(),
          };
  // [C] tags 5/9/10 read their prefix and ignore trailing bytes: some clients send padded data.
  const encoded = encodeInstruction(ix);
  const data = m.rng.chance(SHAPE_RATES.oracleTrailingBytes) ? Uint8Array.from([...encoded, ...m.rng.bytes(m.rng.int(1, 16))]) : encoded;
  return { tag, ix, data, sequence, midprice, spread, stale };
}

export function oracleInstruction(pool: PoolRuntime, update: PlannedOracleUpdate): TopLevelInstruction {
  return {
    programId: pool.programId,
    accounts: [signer(pool.quotingAuthority), writable(pool.addresses.midprice_oracle.address), readonly(SYSVAR_CLOCK)],
    data: update.data,
    units: 35,
  };
}

/** Applies a (non-stale) update at `slot` to the pool's oracle; the account is written by the transaction. */
export function applyOracleUpdate(pool: PoolRuntime, update: PlannedOracleUpdate, slot: number): void {
  pool.oracle = { sequence: update.sequence, midpriceQ32: update.midprice, spreadFactorQ32: update.spread, lastUpdateSlot: BigInt(slot) };
}

export function recordOracleUpdate(m: MarketContext, pool: PoolRuntime, update: PlannedOracleUpdate, tx: StoredTx, location: InstructionLocation): void {
  const fact: OracleUpdateFact = {
    kind: 'oracle_update',
    event_id:
      location.inner_index === null ? `${tx.signature}:${location.top_level_index}` : `${tx.signature}:${location.top_level_index}:${location.inner_index}`,
    instruction: update.ix.instruction as OracleUpdateFact['instruction'],
    tag: update.tag,
    program: pool.programId,
    program_version: pool.version,
    signature: tx.signature,
    slot: tx.slot,
    block_time: tx.blockTime,
    instruction_location: location,
    oracle: pool.addresses.midprice_oracle.address,
    quoting_authority: pool.quotingAuthority,
    sequence: update.sequence.toString(),
    midprice_q32: update.tag === 9 ? null : update.midprice.toString(),
    spread_factor_q32: update.tag === 5 ? null : update.spread.toString(),
    pool_config_via_registry: pool.fact.config,
    tx_index: tx.txIndex,
  };
  m.truth.oracle_updates.push(fact);
}

export function oracleUpdate(m: MarketContext, pool: PoolRuntime, slot: number): void {
  const update = planOracleUpdate(m, pool, m.rng.chance(0.01));
  const hadronIx = oracleInstruction(pool, update);
  // Sometimes through a keeper program (a CPI, stackHeight 2) rather than top level.
  const viaKeeper = m.rng.chance(SHAPE_RATES.oracleViaCpi);
  const top: TopLevelInstruction = viaKeeper
    ? {
        programId: m.keeperProgram,
        accounts: [readonly(pool.programId), ...hadronIx.accounts],
        data: Uint8Array.of(0x6b, 0x65, 0x65, 0x70),
        units: 1_800,
        logs: ['Instruction: Push'],
        inner: [{ ...hadronIx, stackHeight: 2 }],
      }
    : hadronIx;
  if (!update.stale) applyOracleUpdate(pool, update, slot);
  const executed = run(
    m,
    slot,
    {
      version: 'legacy',
      feePayer: pool.quotingAuthority,
      instructions: [top],
      failure: update.stale ? { instructionIndex: 0, custom: HADRON_ERRORS.staleSequence, innerIndex: viaKeeper ? 0 : undefined } : undefined,
      writes: update.stale ? undefined : [{ address: pool.addresses.midprice_oracle.address, state: oracleState(pool) }],
    },
    1_400,
  );
  if (update.stale) {
    recordFailed(m, executed, 'oracle_update', pool, 'stale_sequence');
    return;
  }
  recordOracleUpdate(m, pool, update, executed.stored, { top_level_index: executed.prefix, inner_index: viaKeeper ? 0 : null });
}
