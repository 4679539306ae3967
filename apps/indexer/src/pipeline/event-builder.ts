import type {
  Cluster,
  FeeSplitChangedV1,
  HadronEvent,
  MidpriceUpdatedV1,
  PoolConfigChangedV1,
  PoolDiscoveredV1,
  SwapExecutedV1,
  TokenMetadata,
  TokenMetadataChangedV1,
  VaultBalancesChangedV1,
} from '@hadron/contracts';
import type { DecodeProblem, OracleUpdateFact, SwapFact, TransactionFacts, VaultBalancesFact } from '../decode';
import { poolSnapshotOf, type AccountState } from '../discovery/pool-accounts';
import type { InitializeArgs } from './admin-scan';
import { canonicalSplit, splitOnSwap, type PoolRecord } from './pool-state';

/**
 * Decoded facts + the state in effect → v1 events (libs/contracts), advancing the state. Pure and
 * deterministic: the same facts in the same order from the same state give the same events (same
 * ids, same payloads), which is what makes re-processing after a crash harmless.
 */

/** Stamped on every event: bump when decoding or event derivation changes what is emitted. */
export const DECODER_VERSION = 'hadron-indexer/1.1.0';

/** Where a transaction sits: the envelope of its events. */
export interface TxPosition {
  signature: string;
  slot: number;
  blockTime: number | null;
  txIndex: number | null;
}

/** Where an account-state observation is placed: right after a transaction, or at the end of a slot (read slot). */
export interface ObservationPosition {
  slot: number;
  blockTime: number | null;
  signature: string | null;
  txIndex: number | null;
}

export interface BuiltTransaction {
  events: HadronEvent[];
  problems: DecodeProblem[];
}

export class EventBuilder {
  constructor(
    private readonly cluster: Cluster,
    private readonly pools: ReadonlyMap<string, PoolRecord>,
  ) {}

  /** The events of one successful transaction, in execution order, then its vault balances. */
  transaction(facts: TransactionFacts, pos: TxPosition, initializes: readonly InitializeArgs[] = []): BuiltTransaction {
    const events: HadronEvent[] = [];
    const problems: DecodeProblem[] = [...facts.problems];
    // Initialize [C] sets the oracle's first midprice; it runs before anything else touches the new pool.
    for (const init of initializes) {
      const pool = this.pools.get(init.config);
      if (pool && init.initialMidpriceQ32 !== '0') pool.tracked.midpriceQ32 = init.initialMidpriceQ32;
    }
    for (const fact of facts.events) {
      if (fact.kind === 'swap') {
        const e = this.swap(fact, pos);
        if ('code' in e) problems.push(e);
        else events.push(e);
      } else {
        const e = this.oracleUpdate(fact, pos);
        if ('code' in e) problems.push(e);
        else events.push(e);
      }
    }
    for (const v of facts.vaultBalances) {
      const e = this.vaultBalances(v, pos);
      if ('code' in e) problems.push(e);
      else events.push(e);
    }
    return { events, problems };
  }

  private swap(f: SwapFact, pos: TxPosition): SwapExecutedV1 | DecodeProblem {
    const pool = this.pools.get(f.poolConfig);
    if (!pool)
      return {
        code: 'unknown_pool',
        message: `swap on unknown pool ${f.poolConfig}`,
        eventId: f.eventId,
        instructionLocation: f.instructionLocation,
        poolConfig: f.poolConfig,
      };
    const t = pool.tracked;
    const vaultXAfter = f.vaultXAfter ?? t.vaultX;
    const vaultYAfter = f.vaultYAfter ?? t.vaultY;
    if (vaultXAfter === null || vaultYAfter === null) {
      return {
        code: 'unresolved_amounts',
        message: 'a vault balance after the swap is unknown',
        eventId: f.eventId,
        instructionLocation: f.instructionLocation,
        poolConfig: f.poolConfig,
      };
    }
    t.vaultX = vaultXAfter;
    t.vaultY = vaultYAfter;
    return {
      ...this.envelope(f.eventId, f.poolConfig, pos, f.instructionLocation.topLevelIndex, f.instructionLocation.innerIndex),
      type: 'SwapExecuted',
      data: {
        side: f.side,
        trader: f.trader,
        inputMint: f.inputMint,
        outputMint: f.outputMint,
        amountIn: f.amountIn,
        amountInToVault: f.amountInToVault,
        amountOut: f.amountOut,
        feeRaw: f.protocolFeeRaw,
        feeMint: f.protocolFeeMint,
        feeRecipientAta: f.feeRecipientAta,
        decimalsX: pool.tokens.x.decimals,
        decimalsY: pool.tokens.y.decimals,
        midpriceQ32: t.midpriceQ32,
        spreadFactorQ32: t.spreadFactorQ32,
        vaultXAfter,
        vaultYAfter,
        feeSplit: splitOnSwap(t.split),
      },
    };
  }

  private oracleUpdate(f: OracleUpdateFact, pos: TxPosition): MidpriceUpdatedV1 | DecodeProblem {
    const poolAddress = f.poolConfigViaRegistry;
    const pool = poolAddress === null ? undefined : this.pools.get(poolAddress);
    if (!pool || poolAddress === null) {
      return {
        code: 'unknown_pool',
        message: `oracle update on ${f.oracle}, the oracle of no known pool`,
        eventId: f.eventId,
        instructionLocation: f.instructionLocation,
        poolConfig: null,
      };
    }
    // The oracle right after the update: what the instruction set, else what was in effect before it.
    if (f.midpriceQ32 !== null) pool.tracked.midpriceQ32 = f.midpriceQ32;
    if (f.spreadFactorQ32 !== null) pool.tracked.spreadFactorQ32 = f.spreadFactorQ32;
    pool.tracked.oracleSequence = f.sequence;
    pool.tracked.oracleSlot = pos.slot;
    const { midpriceQ32: midpriceAfterQ32, spreadFactorQ32: spreadFactorAfterQ32 } = pool.tracked;
    return {
      ...this.envelope(f.eventId, poolAddress, pos, f.instructionLocation.topLevelIndex, f.instructionLocation.innerIndex),
      type: 'MidpriceUpdated',
      data: {
        instruction: f.instruction,
        oracle: f.oracle,
        quotingAuthority: f.quotingAuthority,
        sequence: f.sequence,
        midpriceQ32: f.midpriceQ32,
        spreadFactorQ32: f.spreadFactorQ32,
        midpriceAfterQ32,
        spreadFactorAfterQ32,
      },
    };
  }

  private vaultBalances(f: VaultBalancesFact, pos: TxPosition): VaultBalancesChangedV1 | DecodeProblem {
    const pool = this.pools.get(f.poolConfig)!; // the decoder only reports vaults of known pools
    const id = vaultBalancesEventId(f.signature, f.poolConfig);
    const amountX = f.vaultXAfter ?? pool.tracked.vaultX;
    const amountY = f.vaultYAfter ?? pool.tracked.vaultY;
    if (amountX === null || amountY === null) {
      return {
        code: 'unresolved_amounts',
        message: 'one vault is not in the transaction and its balance is not known yet',
        eventId: id,
        instructionLocation: null,
        poolConfig: f.poolConfig,
      };
    }
    pool.tracked.vaultX = amountX;
    pool.tracked.vaultY = amountY;
    return {
      ...this.envelope(id, f.poolConfig, pos, null, null),
      type: 'VaultBalancesChanged',
      data: { vaultX: f.vaultX, vaultY: f.vaultY, amountX, amountY },
    };
  }

  // ---- account-state events ------------------------------------------------------------------

  /** PoolDiscovered (+ FeeSplitChanged when the pool has its own fee config or a split) for `state` observed at `at`. */
  discovered(
    pool: PoolRecord,
    state: AccountState,
    at: ObservationPosition,
    oracle: { midpriceQ32: string | null; spreadFactorQ32: string | null },
  ): HadronEvent[] {
    const config = pool.static.config;
    const discovered: PoolDiscoveredV1 = {
      ...this.observationEnvelope(`${config}:${at.slot}`, config, at),
      type: 'PoolDiscovered',
      data: poolSnapshotOf(pool.static, pool.tokens, state, oracle),
    };
    const split = hasSplitToPublish(state) ? [this.feeSplit(pool, state, at)] : [];
    return [discovered, ...split];
  }

  configChanged(
    pool: PoolRecord,
    state: AccountState,
    at: ObservationPosition,
    oracle: { midpriceQ32: string | null; spreadFactorQ32: string | null },
  ): PoolConfigChangedV1 {
    const config = pool.static.config;
    return {
      ...this.observationEnvelope(`${config}:${at.slot}`, config, at),
      type: 'PoolConfigChanged',
      data: poolSnapshotOf(pool.static, pool.tokens, state, oracle),
    };
  }

  feeSplit(pool: PoolRecord, state: AccountState, at: ObservationPosition): FeeSplitChangedV1 {
    const config = pool.static.config;
    // A per-pool fee config belongs to one pool; the global one is shared, so its id names the pool too.
    const id = state.feeConfig === pool.static.poolFeeConfig ? `${state.feeConfig}:${at.slot}` : `${state.feeConfig}:${at.slot}:${config}`;
    return {
      ...this.observationEnvelope(id, config, at),
      type: 'FeeSplitChanged',
      data: { feeConfig: state.feeConfig, feePpm: Math.min(state.fee?.feePpm ?? 0, 1_000_000), recipients: canonicalSplit(state.fee?.split ?? []) },
    };
  }

  /** A token of the pool reads differently now (read at `at`, the head when refreshed). */
  tokenMetadataChanged(pool: PoolRecord, token: TokenMetadata, at: ObservationPosition): TokenMetadataChangedV1 {
    const config = pool.static.config;
    return { ...this.observationEnvelope(`${config}:metadata:${token.mint}:${at.slot}`, config, at), type: 'TokenMetadataChanged', data: { ...token } };
  }

  private envelope(id: string, pool: string, pos: TxPosition, ixIndex: number | null, innerIndex: number | null) {
    return {
      id,
      version: 1 as const,
      cluster: this.cluster,
      pool,
      slot: pos.slot,
      blockTime: pos.blockTime,
      signature: pos.signature,
      txIndex: pos.txIndex,
      ixIndex,
      innerIndex,
      decoderVersion: DECODER_VERSION,
    };
  }

  private observationEnvelope(id: string, pool: string, at: ObservationPosition) {
    return {
      id,
      version: 1 as const,
      cluster: this.cluster,
      pool,
      slot: at.slot,
      blockTime: at.blockTime,
      signature: at.signature,
      txIndex: at.txIndex,
      ixIndex: null,
      innerIndex: null,
      decoderVersion: DECODER_VERSION,
    };
  }
}

/** A transaction-level fact per (transaction, pool). */
export function vaultBalancesEventId(signature: string, pool: string): string {
  return `${signature}:vaults:${pool}`;
}

/** FeeSplitChanged is about pools with their own fee config, or a fee config that names a split. */
export function hasSplitToPublish(state: AccountState): boolean {
  return state.fee !== null && (state.hasPoolFee || state.fee.split.length > 0);
}
