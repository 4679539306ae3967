import { poolStateName } from '@hadron/domain';
import { RENT_EXEMPT_EPOCH } from '../ledger/ledger';
import type { InnerInstruction, TopLevelInstruction } from '../ledger/transaction-executor';
import { encodeMetadata, rentExempt, tokenAccountRent, tokenAccountSize } from '../spl/spl-accounts';
import { metaplexUpdateMetadataData, systemCreateAccountData, tokenInitializeAccount3Data } from '../spl/spl-instructions';
import { METAPLEX_PROGRAM, SYSTEM_PROGRAM } from '../spl/well-known';
import { LIFECYCLE, SPLIT_CHANGES_AT, TOKEN_RENAMES } from './catalog';
import type { FeeSplitChange } from './ground-truth';
import { initializeData, setPoolStateData, updateFeeConfigData } from './hadron-extra-instructions';
import { liquidity, withdrawAll } from './liquidity';
import { readonly, signer, SOL, writable, type MarketContext } from './market-context';
import { run } from './market-transactions';
import { configState, feeConfigState, poolCreated, poolOwnedAccounts, randomSplit } from './pool-accounts';
import type { PoolRuntime } from './pool-runtime';

/*
 * The scenario: what happens to the market at chosen moments of its schedule, as fractions of it
 * (catalog.ts) — pools paused, rejecting swaps and closed, fee splits rewritten, a token renamed,
 * pools created by transaction after genesis.
 */

export function slotAt(m: MarketContext, fraction: number): number {
  const { firstSlot, slotMs } = m.ledger.clock;
  const span = m.options.scheduleSeconds === null ? m.historyEndSlot - firstSlot + 1 : Math.max(1, Math.round((m.options.scheduleSeconds * 1000) / slotMs));
  return firstSlot + Math.floor(fraction * span);
}

export function planLifecycle(m: MarketContext): void {
  const n = m.options.pools;
  if (n >= 3) {
    for (const event of LIFECYCLE) {
      const pool = m.planned[event.pool % n === 0 ? 1 : event.pool % n];
      if (event.state === 4) {
        m.schedule.push({
          slot: slotAt(m, event.at),
          run: (slot) => {
            withdrawAll(m, pool, slot);
            setPoolState(m, pool, 4, slot);
          },
        });
      } else {
        m.schedule.push({ slot: slotAt(m, event.at), run: (slot) => setPoolState(m, pool, event.state, slot) });
        if (event.until !== null) m.schedule.push({ slot: slotAt(m, event.until), run: (slot) => setPoolState(m, pool, 1, slot) });
      }
    }
  }
  for (const pool of m.planned) {
    if (pool.template.fee !== 'pool-split') continue;
    const createdAt = m.pools.includes(pool) ? 0 : (m.options.latePoolAt ?? 1);
    SPLIT_CHANGES_AT.forEach((at, generation) => {
      if (at > createdAt) m.schedule.push({ slot: slotAt(m, at) + pool.index, run: (slot) => changeFeeSplit(m, pool, generation + 1, slot) });
    });
  }
  for (const rename of TOKEN_RENAMES) {
    const mint = [...m.tokenOrigins].find(([, origin]) => origin.template.symbol === rename.token)?.[0];
    if (mint === undefined) continue; // not in this market (fewer pools)
    const { template, updateAuthority } = m.tokenOrigins.get(mint)!;
    if (template.metadata !== 'metaplex' && template.metadata !== 'metaplex-puffed')
      throw new Error(`TOKEN_RENAMES: ${rename.token} has no Metaplex metadata to rewrite`);
    // The update authority signs and pays for the rename.
    if (!m.ledger.getAccount(updateAuthority)) {
      m.ledger.setAccount(
        updateAuthority,
        { owner: SYSTEM_PROGRAM, lamports: 5 * SOL, data: new Uint8Array(0), executable: false, rentEpoch: RENT_EXEMPT_EPOCH },
        m.ledger.clock.firstSlot - 1,
      );
    }
    m.schedule.push({ slot: slotAt(m, rename.at), run: (slot) => renameToken(m, mint, rename, slot) });
  }
  m.schedule.sort((a, b) => a.slot - b.slot);
}

/**
 * The update authority rewrites a token's Metaplex metadata (UpdateMetadataAccountV2): a new name
 * and symbol on chain from `slot` on, in the ground truth's token (and pool) symbols and renames.
 */
function renameToken(m: MarketContext, mint: string, rename: { symbol: string; name: string }, slot: number): void {
  const token = m.tokens.get(mint)!;
  const { template, updateAuthority } = m.tokenOrigins.get(mint)!;
  const metadata = token.metadata!;
  const uri = token.uri ?? '';
  const data = encodeMetadata({ updateAuthority, mint, name: rename.name, symbol: rename.symbol, uri, puffed: template.metadata === 'metaplex-puffed' });
  const executed = run(
    m,
    slot,
    {
      version: 'legacy',
      feePayer: updateAuthority,
      instructions: [
        {
          programId: METAPLEX_PROGRAM,
          accounts: [writable(metadata), signer(updateAuthority)],
          data: metaplexUpdateMetadataData({ name: rename.name, symbol: rename.symbol, uri }),
          units: 11_000,
          logs: ['Instruction: Update Metadata Accounts v2'],
        },
      ],
      writes: [
        { address: metadata, state: { owner: METAPLEX_PROGRAM, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH } },
      ],
    },
    30_000,
    m.tokenEventRng,
  );
  token.renames.push({ slot: executed.stored.slot, symbol: rename.symbol, name: rename.name, before: { symbol: token.symbol, name: token.name } });
  token.symbol = rename.symbol;
  token.name = rename.name;
  for (const pool of m.planned) {
    if (pool.mintX === mint) pool.fact.symbol_x = rename.symbol;
    if (pool.mintY === mint) pool.fact.symbol_y = rename.symbol;
  }
}

/**
 * Creates a planned pool by transaction: Initialize (tag 0) with the account creations it CPIs,
 * then a first deposit. [A] The Initialize account list is not confirmed; the indexer discovers
 * pools from their config accounts, not from this instruction.
 */
export function initializePool(m: MarketContext, pool: PoolRuntime, slot: number): void {
  pool.oracle = { ...pool.oracle, lastUpdateSlot: BigInt(slot) };
  pool.fact.initial_oracle = { ...pool.fact.initial_oracle, last_update_slot: String(slot) };
  const a = pool.addresses;
  const owned = poolOwnedAccounts(pool);
  const inner: InnerInstruction[] = owned.map(([address, state]) => ({
    programId: SYSTEM_PROGRAM,
    accounts: [signer(pool.authority), signer(address)],
    data: systemCreateAccountData(state.lamports, state.data.length, pool.programId),
    stackHeight: 2,
  }));
  for (const [vault, mint, program] of [
    [a.vault_x.address, pool.mintX, pool.tokenProgramX],
    [a.vault_y.address, pool.mintY, pool.tokenProgramY],
  ] as const) {
    inner.push({
      programId: SYSTEM_PROGRAM,
      accounts: [signer(pool.authority), signer(vault)],
      data: systemCreateAccountData(tokenAccountRent(program), tokenAccountSize(program), program),
      stackHeight: 2,
    });
    inner.push({ programId: program, accounts: [writable(vault), readonly(mint)], data: tokenInitializeAccount3Data(a.config.address), stackHeight: 2 });
  }
  const ix: TopLevelInstruction = {
    programId: pool.programId,
    accounts: [
      signer(pool.authority),
      ...owned.map(([address]) => writable(address)),
      writable(a.vault_x.address),
      writable(a.vault_y.address),
      readonly(pool.mintX),
      readonly(pool.mintY),
      readonly(pool.tokenProgramX),
      readonly(pool.tokenProgramY),
      readonly(SYSTEM_PROGRAM),
    ],
    data: initializeData({
      seed: pool.seed,
      mintX: pool.mintX,
      mintY: pool.mintY,
      authority: pool.authority,
      initialMidpriceQ32: pool.oracle.midpriceQ32,
      oracleMode: pool.config.oracle_mode,
      maxPrefabSlots: 4,
      maxCurvePoints: 16,
    }),
    units: 60_000,
    inner,
  };
  const executed = run(
    m,
    slot,
    { version: 'legacy', feePayer: pool.authority, instructions: [ix], writes: owned.map(([address, state]) => ({ address, state })) },
    400_000,
  );
  poolCreated(m, pool, slot, executed.stored.signature);
  // The vaults now exist, empty: listed in postTokenBalances at 0, absent before (= 0), so no
  // vault balance changed and there is no VaultBalanceChange (the decoder's rule as well).
  liquidity(m, pool, slot, 'deposit', { x: pool.initialVaults.x, y: pool.initialVaults.y });
}

export function setPoolState(m: MarketContext, pool: PoolRuntime, state: number, slot: number): void {
  pool.config = { ...pool.config, state };
  const executed = run(
    m,
    slot,
    {
      version: 'legacy',
      feePayer: pool.authority,
      instructions: [
        {
          programId: pool.programId,
          accounts: [signer(pool.authority), writable(pool.addresses.config.address)],
          data: setPoolStateData(state),
          units: 1_200,
        },
      ],
      writes: [{ address: pool.addresses.config.address, state: configState(pool) }],
    },
    5_000,
  );
  pool.fact.state_history.push({
    slot,
    block_time: executed.stored.blockTime,
    signature: executed.stored.signature,
    state,
    state_name: poolStateName(state) ?? `Unknown(${state})`,
  });
}

export function changeFeeSplit(m: MarketContext, pool: PoolRuntime, generation: number, slot: number): void {
  pool.fee.split = randomSplit(m, pool.index, generation);
  if (m.rng.chance(0.5)) pool.fee.ppm = m.rng.pick([5, 25, 100, 250]);
  const executed = run(
    m,
    slot,
    {
      version: 'legacy',
      feePayer: pool.fee.admin,
      instructions: [
        { programId: pool.programId, accounts: [signer(pool.fee.admin), writable(pool.fee.address)], data: updateFeeConfigData(pool.fee.ppm), units: 2_400 },
      ],
      writes: [{ address: pool.fee.address, state: feeConfigState(pool) }],
    },
    10_000,
  );
  const change: FeeSplitChange = {
    pool_config: pool.fact.config,
    fee_config: pool.fee.address,
    slot,
    block_time: executed.stored.blockTime,
    signature: executed.stored.signature,
    fee_ppm: pool.fee.ppm,
    recipients: pool.fee.split.map((w) => ({ ...w })),
  };
  m.truth.fee_split_changes.push(change);
}
