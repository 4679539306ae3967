import type { ExecutedTx } from '../ledger/transaction-executor';
import { associatedTokenAddress } from '../spl/addresses';
import type { InstructionLocation, SwapFact } from './ground-truth';
import { HADRON_ERRORS } from './hadron-extra-instructions';
import { I64_MAX, SHAPE_RATES, type MarketContext, type Trader } from './market-context';
import { recordFailed, recordVaultChange, run, tokenBalance } from './market-transactions';
import { oracleState } from './pool-accounts';
import { midpriceRaw, quoteSwap, type PoolRuntime } from './pool-runtime';
import { applyOracleUpdate, oracleInstruction, planOracleUpdate, recordOracleUpdate } from './price-path';
import { buildSwapTransaction, type PlannedSwap, type RouterPlatformFee, type SwapRoute } from './swap-transaction';

/*
 * The order flow of swaps: traders' swaps in every route shape (built by swap-transaction.ts),
 * sized in quote value, priced at the oracle in effect, some failing; and their ground truth.
 */

/**
 * `count` swaps by one trader on one pool, priced at the oracle in effect now, each on the vaults
 * the previous one left. Null when the trader cannot afford them (nothing is sent).
 */
function planSwaps(m: MarketContext, pool: PoolRuntime, trader: Trader, count: number, slippage: boolean): PlannedSwap[] | null {
  const planned: PlannedSwap[] = [];
  const vaults = { x: tokenBalance(m, pool.addresses.vault_x.address), y: tokenBalance(m, pool.addresses.vault_y.address) };
  for (let k = 0; k < count; k++) {
    const isX = m.rng.chance(0.5);
    const [inMint, outMint, inProgram, outProgram] = isX
      ? [pool.mintX, pool.mintY, pool.tokenProgramX, pool.tokenProgramY]
      : [pool.mintY, pool.mintX, pool.tokenProgramY, pool.tokenProgramX];
    const userSource = associatedTokenAddress(trader.key, inMint, inProgram);
    const userDest = associatedTokenAddress(trader.key, outMint, outProgram);
    const available = tokenBalance(m, userSource) - planned.filter((p) => p.userSource === userSource).reduce((a, p) => a + p.amountIn, 0n);
    if (available <= 0n) return null;
    if (count > 1 && !m.ledger.getAccount(userDest)) return null;
    const value = m.rng.logUniform(pool.swapValue.min, pool.swapValue.max);
    const mid = midpriceRaw(pool);
    let amountIn = BigInt(Math.max(1, Math.floor(isX ? (value * 10 ** pool.decimalsY) / mid : value * 10 ** pool.decimalsY)));
    if (amountIn > available) amountIn = available / 2n;
    const vaultOut = isX ? vaults.y : vaults.x;
    let quote = quoteSwap(pool, isX, amountIn, pool.fee.ppm);
    if (quote.out > vaultOut / 5n) {
      amountIn = (amountIn * (vaultOut / 5n)) / (quote.out + 1n);
      quote = quoteSwap(pool, isX, amountIn, pool.fee.ppm);
    }
    if (amountIn === 0n || quote.out === 0n) return null;
    const minOut = slippage && k === 0 ? quote.out + 1n + quote.out / 100n : (quote.out * BigInt(m.rng.pick([9_900, 9_950, 9_990, 10_000]))) / 10_000n;
    const expiration = m.rng.chance(0.5) ? I64_MAX : BigInt(m.ledger.blockTimeOf(m.ledger.head) + m.rng.int(20, 120));
    // [C] any non-zero is_x sells X: a few clients send another non-zero byte.
    const isXByte = !isX ? 0 : m.rng.chance(SHAPE_RATES.nonCanonicalIsX) ? m.rng.pick([2, 7, 128, 255]) : 1;
    planned.push({
      isX,
      isXByte,
      amountIn,
      minOut,
      expiration,
      fee: quote.fee,
      amountOut: quote.out,
      userSource,
      userDest,
      inMint,
      outMint,
      inProgram,
      outProgram,
      midpriceQ32: pool.oracle.midpriceQ32,
      spreadFactorQ32: pool.oracle.spreadFactorQ32,
    });
    if (isX) {
      vaults.x += quote.net;
      vaults.y -= quote.out;
    } else {
      vaults.y += quote.net;
      vaults.x -= quote.out;
    }
  }
  return planned;
}

/** The router's platform fee on the last swap's output (TransferChecked), when it has one. */
function platformFee(m: MarketContext, pool: PoolRuntime, last: PlannedSwap): RouterPlatformFee | undefined {
  const amount = last.amountOut / 1_000n; // 10 bps
  if (amount === 0n) return undefined;
  const decimals = last.outMint === pool.mintX ? pool.decimalsX : pool.decimalsY;
  return {
    from: last.userDest,
    to: associatedTokenAddress(m.routerFeeOwner, last.outMint, last.outProgram),
    mint: last.outMint,
    tokenProgram: last.outProgram,
    decimals,
    amount,
  };
}

export function swap(m: MarketContext, pool: PoolRuntime, slot: number): void {
  const trader = m.rng.pick(m.traders);
  const route: SwapRoute = m.rng.weighted([
    ['legacy-direct', 0.48],
    ['v0-direct', 0.15],
    ['v0-cpi', 0.15],
    ['legacy-cpi', 0.07],
    ['legacy-double', 0.06],
    ['v0-cpi-double', 0.05],
    ['legacy-direct-cpi', 0.02],
    ['v0-direct-cpi', 0.02],
  ] as const);
  const double = route === 'legacy-double' || route === 'v0-cpi-double' || route.endsWith('direct-cpi');
  const viaRouter = route.includes('cpi');
  const active = pool.config.state === 1;
  const slippage = active && m.rng.chance(m.options.failedSwapRate);
  const vaultX = tokenBalance(m, pool.addresses.vault_x.address);
  const vaultY = tokenBalance(m, pool.addresses.vault_y.address);
  const planned = planSwaps(m, pool, trader, double ? 2 : 1, slippage);
  if (!planned) return;
  const failure = !active
    ? ({ custom: HADRON_ERRORS.poolNotActive, reason: 'pool_not_active' } as const)
    : slippage
      ? ({ custom: HADRON_ERRORS.slippageExceeded, reason: 'slippage' } as const)
      : null;
  const built = buildSwapTransaction({
    pool,
    trader: trader.key,
    route,
    swaps: planned,
    routerProgram: m.routerProgram,
    lookupTable: { address: pool.lookupTable, addresses: m.lookupTables.get(pool.lookupTable)! },
    createDestAccount: !m.ledger.getAccount(planned[0].userDest),
    failure: failure?.custom ?? null,
    platformFee: viaRouter && m.rng.chance(SHAPE_RATES.routerPlatformFee) ? platformFee(m, pool, planned[planned.length - 1]) : undefined,
    // A transaction from before stackHeight was recorded: only sound to decode (from balance
    // deltas) when the swap is the pool's only one in the transaction, as on chain back then.
    omitStackHeight: viaRouter && !double && m.rng.chance(SHAPE_RATES.cpiWithoutStackHeight),
  });
  const executed = run(m, slot, built.spec, 300_000);
  if (failure) {
    recordFailed(m, executed, 'swap', pool, failure.reason);
    return;
  }
  recordSwaps(m, executed, pool, trader, planned, built.locations, vaultX, vaultY);
  recordVaultChange(
    m,
    executed,
    pool,
    planned.map(() => 'swap'),
    vaultX,
    vaultY,
  );
}

/**
 * An oracle update and a swap on the same pool in one transaction (a market maker's bundle), in
 * either order: the swap is priced at the midprice in effect when it executes — the new one when
 * the update comes first.
 */
export function swapWithOracleUpdate(m: MarketContext, pool: PoolRuntime, slot: number): void {
  const trader = m.rng.pick(m.traders);
  const updateFirst = m.rng.chance(0.5);
  const vaultX = tokenBalance(m, pool.addresses.vault_x.address);
  const vaultY = tokenBalance(m, pool.addresses.vault_y.address);
  const update = planOracleUpdate(m, pool, false);
  const before = pool.oracle;
  if (updateFirst) applyOracleUpdate(pool, update, slot);
  const planned = planSwaps(m, pool, trader, 1, false);
  if (!planned || !m.ledger.getAccount(planned[0].userDest)) {
    pool.oracle = before; // nothing sent
    return;
  }
  if (!updateFirst) applyOracleUpdate(pool, update, slot);
  const built = buildSwapTransaction({
    pool,
    trader: trader.key,
    route: 'legacy-direct',
    swaps: planned,
    routerProgram: m.routerProgram,
    lookupTable: { address: pool.lookupTable, addresses: m.lookupTables.get(pool.lookupTable)! },
    createDestAccount: false,
    failure: null,
  });
  const oracleIx = oracleInstruction(pool, update);
  const instructions = updateFirst ? [oracleIx, ...built.spec.instructions] : [...built.spec.instructions, oracleIx];
  const shift = updateFirst ? 1 : 0;
  const executed = run(
    m,
    slot,
    { ...built.spec, instructions, writes: [{ address: pool.addresses.midprice_oracle.address, state: oracleState(pool) }] },
    300_000,
  );
  const locations = built.locations.map((l) => ({ ...l, top_level_index: l.top_level_index + shift }));
  const oracleAt = { top_level_index: executed.prefix + (updateFirst ? 0 : built.spec.instructions.length), inner_index: null };
  if (updateFirst) recordOracleUpdate(m, pool, update, executed.stored, oracleAt);
  recordSwaps(m, executed, pool, trader, planned, locations, vaultX, vaultY);
  if (!updateFirst) recordOracleUpdate(m, pool, update, executed.stored, oracleAt);
  recordVaultChange(m, executed, pool, ['swap'], vaultX, vaultY);
}

function recordSwaps(
  m: MarketContext,
  executed: ExecutedTx & { prefix: number },
  pool: PoolRuntime,
  trader: Trader,
  planned: PlannedSwap[],
  locations: InstructionLocation[],
  vaultX: bigint,
  vaultY: bigint,
): void {
  const tx = executed.stored;
  const post = (address: string) => {
    const i = executed.accountKeys.indexOf(address);
    return executed.postTokenBalances.find((b) => b.accountIndex === i)!.uiTokenAmount.amount;
  };
  const after = { x: vaultX, y: vaultY };
  for (const [k, s] of planned.entries()) {
    const location = locations[k];
    const top = location.top_level_index + executed.prefix;
    if (s.isX) {
      after.x += s.amountIn - s.fee;
      after.y -= s.amountOut;
    } else {
      after.y += s.amountIn - s.fee;
      after.x -= s.amountOut;
    }
    const fact: SwapFact = {
      kind: 'swap',
      event_id: location.inner_index === null ? `${tx.signature}:${top}` : `${tx.signature}:${top}:${location.inner_index}`,
      program: pool.programId,
      program_version: pool.version,
      signature: tx.signature,
      slot: tx.slot,
      block_time: tx.blockTime,
      instruction_location: { top_level_index: top, inner_index: location.inner_index },
      pool_config: pool.fact.config,
      midprice_oracle: pool.addresses.midprice_oracle.address,
      is_x: s.isXByte,
      side: s.isX ? 'sell' : 'buy',
      input_mint: s.inMint,
      output_mint: s.outMint,
      trader: trader.key,
      user_source: s.userSource,
      user_dest: s.userDest,
      vault_source: s.isX ? pool.addresses.vault_x.address : pool.addresses.vault_y.address,
      vault_dest: s.isX ? pool.addresses.vault_y.address : pool.addresses.vault_x.address,
      fee_recipient_ata: pool.fee.atas[s.inMint],
      instruction_args: { amount_in: s.amountIn.toString(), min_out: s.minOut.toString(), expiration: s.expiration.toString() },
      amount_in: s.amountIn.toString(),
      amount_in_to_vault: (s.amountIn - s.fee).toString(),
      amount_out: s.amountOut.toString(),
      protocol_fee_raw: s.fee.toString(),
      protocol_fee_mint: s.inMint,
      vault_x: pool.addresses.vault_x.address,
      vault_y: pool.addresses.vault_y.address,
      vault_x_after: post(pool.addresses.vault_x.address),
      vault_y_after: post(pool.addresses.vault_y.address),
      tx_index: tx.txIndex,
      tx_version: tx.version,
      route: location.inner_index === null ? 'direct' : 'cpi',
      vault_x_after_instruction: after.x.toString(),
      vault_y_after_instruction: after.y.toString(),
      midprice_q32: s.midpriceQ32.toString(),
      spread_factor_q32: s.spreadFactorQ32.toString(),
      fee_config: pool.fee.address,
      fee_ppm: pool.fee.ppm,
      fee_split: pool.fee.isPoolFee && pool.fee.split.length > 0 ? pool.fee.split.map((w) => ({ ...w })) : null,
      decimals_x: pool.decimalsX,
      decimals_y: pool.decimalsY,
    };
    m.truth.swaps.push(fact);
  }
}
