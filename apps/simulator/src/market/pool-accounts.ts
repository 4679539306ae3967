import {
  derivePoolAddresses,
  encodeConfigAccount,
  encodeFeeConfigAccount,
  encodeFeeSplit,
  encodeOracleAccount,
  FEE_CONFIG_SIZE,
  globalFeeConfigAddress,
  ORACLE_SIZE,
  type HadronProgramVersion,
  type SplitWeight,
} from '@hadron/domain';
import { RENT_EXEMPT_EPOCH, type AccountState } from '../ledger/ledger';
import { associatedTokenAddress } from '../spl/addresses';
import { encodeLookupTable, rentExempt } from '../spl/spl-accounts';
import { ADDRESS_LOOKUP_TABLE_PROGRAM, ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, SYSVAR_CLOCK, SYSVAR_INSTRUCTIONS, ZERO_PUBKEY } from '../spl/well-known';
import { ACTIVITY_FACTOR, GLOBAL_FEE, POOL_ROTATION, QUOTE_USD, QUOTES } from './catalog';
import { PROGRAMS, Q32, SOL, spreadFactor, type MarketContext } from './market-context';
import { midpriceRaw, type PoolRuntime } from './pool-runtime';
import { createToken, createTokenAccount, ensureFunded } from './token-accounts';

/** Sizes of the Hadron accounts whose layouts we do not know (zero-filled; distinct from every known size). */
const UNKNOWN_LAYOUT_SIZES = { curveMeta: 160, curvePrefabs: 2048, curveUpdates: 512, spreadConfig: 96 };

/**
 * Plans pool `index` and writes what exists independently of it (wallets, tokens, token accounts,
 * its lookup table) at `slot`. Unless `deferred`, the pool's own accounts and funded vaults are
 * written too (a pool that exists at genesis); otherwise initializePool creates them by a tx.
 */
export function createPool(
  m: MarketContext,
  index: number,
  slot: number,
  put: (address: string, state: Omit<AccountState, 'rentEpoch' | 'executable'>) => void,
  deferred: boolean,
): PoolRuntime {
  const template = POOL_ROTATION[index % POOL_ROTATION.length];
  const version = template.program;
  const programId = PROGRAMS[version];
  const base = createToken(m, template.base, slot);
  const quote = createToken(m, QUOTES[template.quote], slot);
  const seed = index < POOL_ROTATION.length ? BigInt(m.rng.int(0, 999_999)) : m.rng.bigBelow(1n << 64n);
  const addresses = derivePoolAddresses(programId, seed, base.mint, quote.mint, base.token_program, quote.token_program);
  // The vaults are the config's associated token accounts: checked against spl-token's own
  // derivation, so the simulator never takes @hadron/domain's ATA derivation on trust.
  for (const [vault, token] of [
    [addresses.vault_x.address, base],
    [addresses.vault_y.address, quote],
  ] as const) {
    const ata = associatedTokenAddress(addresses.config.address, token.mint, token.token_program);
    if (vault !== ata) throw new Error(`pool ${index}: @hadron/domain derives vault ${vault} for mint ${token.mint}; spl-token's ATA of the config is ${ata}`);
  }
  const authority = m.keys.key(`pool-authority/${index}`);
  const quotingAuthority = m.keys.key(`quoting-authority/${index}`);
  for (const wallet of [authority, quotingAuthority]) put(wallet, { owner: SYSTEM_PROGRAM, lamports: 500 * SOL, data: new Uint8Array(0) });

  // Oracle: start from the template price, a spread of 0–25 bps.
  const price = template.base.price!;
  const midpriceQ32 = BigInt(Math.round(price * 10 ** (quote.decimals - base.decimals) * Q32));
  const spreadFactorQ32 = spreadFactor(m.rng.pick([0, 3, 5, 7, 10, 25]));
  const oracle = { sequence: BigInt(m.rng.int(1, 5_000_000)), midpriceQ32, spreadFactorQ32, lastUpdateSlot: BigInt(slot) };

  // Fee config in use.
  const isPoolFee = template.fee !== 'global';
  const feeVersion: HadronProgramVersion = template.fee === 'pool-zero' ? 'v1' : version;
  const feeAddress = isPoolFee ? addresses.pool_fee_config : globalFeeConfigAddress(programId);
  const recipient = isPoolFee ? m.keys.key(`pool-fee-recipient/${index}`) : GLOBAL_FEE[version].recipient;
  const fee: PoolRuntime['fee'] = {
    address: feeAddress.address,
    isPoolFee,
    version: feeVersion,
    bump: feeAddress.bump,
    admin: isPoolFee ? m.keys.key(`pool-fee-admin/${index}`) : m.keys.key(`fee-admin/${version}`),
    ppm: template.fee === 'global' ? GLOBAL_FEE[version].ppm : template.fee === 'pool-zero' ? 0 : m.rng.pick([5, 25, 100]),
    recipient,
    split: template.fee === 'pool-split' ? randomSplit(m, index, 0) : [],
    atas: {},
  };
  for (const t of [base, quote]) fee.atas[t.mint] = associatedTokenAddress(recipient, t.mint, t.token_program);
  if (!m.ledger.getAccount(fee.admin)) put(fee.admin, { owner: SYSTEM_PROGRAM, lamports: 10 * SOL, data: new Uint8Array(0) });

  const config = {
    version,
    size: version === 'v1' ? 248 : 724,
    state: 1,
    seed: seed.toString(),
    authority,
    mint_x: base.mint,
    mint_y: quote.mint,
    bump: addresses.config.bump,
    curve_meta: addresses.curve_meta.address,
    spread_config_initialized: template.spreadConfig ? 1 : 0,
    delta_staleness: 10,
    oracle_mode: 0,
    has_pool_fee: isPoolFee ? 1 : 0,
    padding_hex: '0000',
    pending_authority: ZERO_PUBKEY,
    nomination_expiry: '0',
    token_program_x: base.token_program,
    token_program_y: quote.token_program,
  };

  const lookupTable = m.keys.key(`lookup-table/${index}`);
  const quoteUsd = QUOTE_USD[template.quote];
  const swapUsd = template.activity === 'busy' ? { min: 1, max: 25_000 } : { min: 0.5, max: 4_000 };
  const pool: PoolRuntime = {
    index,
    template,
    programId,
    version,
    seed,
    addresses,
    config,
    authority,
    quotingAuthority,
    mintX: base.mint,
    mintY: quote.mint,
    decimalsX: base.decimals,
    decimalsY: quote.decimals,
    tokenProgramX: base.token_program,
    tokenProgramY: quote.token_program,
    authorityAtaX: '',
    authorityAtaY: '',
    initialVaults: { x: 0n, y: 0n },
    oracle,
    fee,
    lookupTable,
    midpriceRate: m.options.midpriceUpdatesPerSecond * ACTIVITY_FACTOR[template.activity],
    swapRate: m.options.swapsPerSecond * ACTIVITY_FACTOR[template.activity],
    liquidityRate: m.options.liquidityEventsPerSecond,
    swapValue: { min: swapUsd.min / quoteUsd, max: swapUsd.max / quoteUsd },
    fact: {
      config: addresses.config.address,
      program: programId,
      program_version: version,
      seed: seed.toString(),
      authority,
      quoting_authority: quotingAuthority,
      mint_x: base.mint,
      mint_y: quote.mint,
      symbol_x: base.symbol,
      symbol_y: quote.symbol,
      decimals_x: base.decimals,
      decimals_y: quote.decimals,
      token_program_x: base.token_program,
      token_program_y: quote.token_program,
      vault_x: addresses.vault_x.address,
      vault_y: addresses.vault_y.address,
      oracle: addresses.midprice_oracle.address,
      curve_meta: addresses.curve_meta.address,
      curve_prefabs: addresses.curve_prefabs.address,
      curve_updates: addresses.curve_updates.address,
      spread_config: template.spreadConfig ? addresses.spread_config.address : null,
      has_pool_fee: config.has_pool_fee,
      fee_config: feeAddress.address,
      fee_recipient: recipient,
      lookup_table: lookupTable,
      activity: template.activity,
      created_slot: slot,
      created_signature: null,
      initial_oracle: {
        sequence: oracle.sequence.toString(),
        midprice_q32: oracle.midpriceQ32.toString(),
        spread_factor_q32: oracle.spreadFactorQ32.toString(),
        last_update_slot: oracle.lastUpdateSlot.toString(),
      },
      state_history: [{ slot, block_time: m.ledger.blockTimeOf(slot), signature: null, state: 1, state_name: 'Initialized' }],
    },
  };

  // Vaults and the token accounts swaps and deposits use, funded in quote value.
  const vaultValue = (template.activity === 'busy' ? 2_000_000 : template.activity === 'medium' ? 400_000 : 150_000) / quoteUsd;
  const traderValue = 250_000 / quoteUsd;
  const atomsOf = (value: number, isBase: boolean) =>
    BigInt(Math.floor(isBase ? (value * 10 ** quote.decimals) / midpriceRaw(pool) : value * 10 ** quote.decimals));
  pool.initialVaults = { x: atomsOf(vaultValue, true), y: atomsOf(vaultValue, false) };
  if (!deferred) {
    for (const [address, state] of poolOwnedAccounts(pool)) put(address, state);
    createTokenAccount(m, addresses.config.address, base.mint, base.token_program, pool.initialVaults.x, slot);
    createTokenAccount(m, addresses.config.address, quote.mint, quote.token_program, pool.initialVaults.y, slot);
    poolCreated(m, pool, slot, null);
  }
  pool.authorityAtaX = ensureFunded(m, authority, base, atomsOf(20 * vaultValue, true), slot);
  pool.authorityAtaY = ensureFunded(m, authority, quote, atomsOf(20 * vaultValue, false), slot);
  for (const t of [base, quote]) {
    if (!m.ledger.getAccount(fee.atas[t.mint])) createTokenAccount(m, recipient, t.mint, t.token_program, 0n, slot);
    ensureFunded(m, m.routerFeeOwner, t, 0n, slot); // the router's platform-fee account of each mint
  }
  // Most traders hold both tokens; the rest get their token account created by their first swap.
  for (const [i, trader] of m.traders.entries()) {
    if ((i + index) % 4 !== 0) ensureFunded(m, trader.key, base, atomsOf(traderValue, true), slot);
    ensureFunded(m, trader.key, quote, atomsOf(traderValue, false), slot);
  }

  // The pool's address lookup table (used by v0 transactions).
  const tableAddresses = [
    ...new Set([
      pool.tokenProgramX,
      pool.tokenProgramY,
      addresses.config.address,
      addresses.midprice_oracle.address,
      addresses.curve_meta.address,
      addresses.curve_prefabs.address,
      addresses.curve_updates.address,
      addresses.vault_x.address,
      addresses.vault_y.address,
      fee.address,
      fee.atas[base.mint],
      fee.atas[quote.mint],
      SYSVAR_CLOCK,
      ...(template.spreadConfig ? [addresses.spread_config.address, SYSVAR_INSTRUCTIONS] : []),
      base.mint,
      quote.mint,
      SYSTEM_PROGRAM,
      ASSOCIATED_TOKEN_PROGRAM,
      programId,
    ]),
  ];
  const tableData = encodeLookupTable({ authority: m.keys.key('lookup-table-authority'), lastExtendedSlot: slot - 1000, addresses: tableAddresses });
  put(lookupTable, { owner: ADDRESS_LOOKUP_TABLE_PROGRAM, lamports: rentExempt(tableData.length), data: tableData });
  m.lookupTables.set(lookupTable, tableAddresses);
  m.planned[index] = pool;
  return pool;
}

/** Config, oracle, curve accounts, spread config and a per-pool fee config, as first written. */
export function poolOwnedAccounts(pool: PoolRuntime): [string, AccountState][] {
  const a = pool.addresses;
  const zeroed = (size: number): AccountState => ({
    owner: pool.programId,
    lamports: rentExempt(size),
    data: new Uint8Array(size),
    executable: false,
    rentEpoch: RENT_EXEMPT_EPOCH,
  });
  const out: [string, AccountState][] = [
    [a.config.address, configState(pool)],
    [a.midprice_oracle.address, oracleState(pool)],
    [a.curve_meta.address, zeroed(UNKNOWN_LAYOUT_SIZES.curveMeta)],
    [a.curve_prefabs.address, zeroed(UNKNOWN_LAYOUT_SIZES.curvePrefabs)],
    [a.curve_updates.address, zeroed(UNKNOWN_LAYOUT_SIZES.curveUpdates)],
  ];
  if (pool.template.spreadConfig) out.push([a.spread_config.address, zeroed(UNKNOWN_LAYOUT_SIZES.spreadConfig)]);
  if (pool.fee.isPoolFee) out.push([pool.fee.address, feeConfigState(pool)]);
  return out;
}

/** The pool exists from `slot` on: it trades, and the ground truth lists it. */
export function poolCreated(m: MarketContext, pool: PoolRuntime, slot: number, signature: string | null): void {
  const blockTime = m.ledger.blockTimeOf(slot);
  pool.fact.created_slot = slot;
  pool.fact.created_signature = signature;
  pool.fact.state_history = [{ slot, block_time: blockTime, signature, state: 1, state_name: 'Initialized' }];
  if (pool.fee.isPoolFee) {
    m.truth.fee_split_changes.push({
      pool_config: pool.fact.config,
      fee_config: pool.fee.address,
      slot,
      block_time: blockTime,
      signature,
      fee_ppm: pool.fee.ppm,
      recipients: pool.fee.split.map((w) => ({ ...w })),
    });
  }
  m.pools.push(pool);
  m.truth.pools.push(pool.fact);
}

export function randomSplit(m: MarketContext, poolIndex: number, generation: number): SplitWeight[] {
  const count = m.rng.int(2, 4);
  const weights: number[] = [];
  let left = 1_000_000;
  for (let i = 0; i < count - 1; i++) {
    const w = m.rng.int(1, Math.floor(left / 2)) * 1;
    weights.push(w);
    left -= w;
  }
  weights.push(left);
  return weights.map((ppm, i) => ({ recipient: m.keys.key(`split-recipient/${poolIndex}/${generation}/${i}`), ppm }));
}

export function configState(pool: PoolRuntime): AccountState {
  const data =
    pool.version === 'v2'
      ? encodeConfigAccount(pool.config, { u64_at_422: '16', curve_prefabs_at_430: pool.addresses.curve_prefabs.address })
      : encodeConfigAccount(pool.config);
  return { owner: pool.programId, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH };
}

export function oracleState(pool: PoolRuntime): AccountState {
  const data = encodeOracleAccount({
    version: pool.version,
    size: ORACLE_SIZE[pool.version],
    quoting_authority: pool.quotingAuthority,
    sequence: pool.oracle.sequence.toString(),
    midprice_q32: pool.oracle.midpriceQ32.toString(),
    spread_factor_q32: pool.oracle.spreadFactorQ32.toString(),
    last_update_slot: pool.oracle.lastUpdateSlot.toString(),
  });
  return { owner: pool.programId, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH };
}

export function feeConfigState(pool: PoolRuntime): AccountState {
  const f = pool.fee;
  const account = {
    version: f.version,
    size: FEE_CONFIG_SIZE[f.version],
    initialized: 1,
    fee_ppm: f.ppm,
    bump: f.bump,
    admin: f.admin,
    fee_recipient: f.recipient,
  };
  const data = f.version === 'v2' ? encodeFeeSplit(account, f.split) : encodeFeeConfigAccount(account);
  return { owner: pool.programId, lamports: rentExempt(data.length), data, executable: false, rentEpoch: RENT_EXEMPT_EPOCH };
}
