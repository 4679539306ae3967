import type { TopLevelInstruction } from '../ledger/transaction-executor';
import { tokenTransferData } from '../spl/spl-instructions';
import type { LiquidityFact } from './ground-truth';
import { DEPOSIT_TAG, liquidityData, WITHDRAW_TAG } from './hadron-extra-instructions';
import { bigMin, readonly, signer, writable, type MarketContext } from './market-context';
import { recordVaultChange, run, tokenBalance } from './market-transactions';
import type { PoolRuntime } from './pool-runtime';

/** A deposit or withdrawal by the pool authority (tags 1/2): random fractions of the vaults, or `fixed`. */
export function liquidity(m: MarketContext, pool: PoolRuntime, slot: number, kind: 'deposit' | 'withdraw', fixed?: { x: bigint; y: bigint } | 'all'): void {
  const vaultX = tokenBalance(m, pool.addresses.vault_x.address);
  const vaultY = tokenBalance(m, pool.addresses.vault_y.address);
  const fraction = () => BigInt(m.rng.int(5, 60)); // per mille
  let amountX = fixed === 'all' ? vaultX : fixed ? fixed.x : m.rng.chance(0.15) ? 0n : (vaultX * fraction()) / 1000n;
  let amountY = fixed === 'all' ? vaultY : fixed ? fixed.y : m.rng.chance(0.15) ? 0n : (vaultY * fraction()) / 1000n;
  if (kind === 'deposit') {
    amountX = bigMin(amountX, tokenBalance(m, pool.authorityAtaX));
    amountY = bigMin(amountY, tokenBalance(m, pool.authorityAtaY));
  }
  if (amountX === 0n && amountY === 0n) return;
  const a = pool.addresses;
  const [from, to, authority] =
    kind === 'deposit'
      ? ([[pool.authorityAtaX, pool.authorityAtaY], [a.vault_x.address, a.vault_y.address], pool.authority] as const)
      : ([[a.vault_x.address, a.vault_y.address], [pool.authorityAtaX, pool.authorityAtaY], a.config.address] as const);
  const inner = [];
  if (amountX > 0n)
    inner.push({
      programId: pool.tokenProgramX,
      accounts: [writable(from[0]), writable(to[0]), readonly(authority)],
      data: tokenTransferData(amountX),
      stackHeight: 2,
    });
  if (amountY > 0n)
    inner.push({
      programId: pool.tokenProgramY,
      accounts: [writable(from[1]), writable(to[1]), readonly(authority)],
      data: tokenTransferData(amountY),
      stackHeight: 2,
    });
  const expiration = BigInt(m.ledger.blockTimeOf(slot) + 60);
  const ix: TopLevelInstruction = {
    programId: pool.programId,
    accounts: [
      signer(pool.authority),
      writable(a.vault_x.address),
      writable(a.vault_y.address),
      writable(pool.authorityAtaX),
      writable(pool.authorityAtaY),
      readonly(a.config.address),
      readonly(pool.tokenProgramX),
      readonly(pool.tokenProgramY),
    ],
    data: liquidityData(kind === 'deposit' ? DEPOSIT_TAG : WITHDRAW_TAG, amountX, amountY, expiration),
    units: 9_000,
    inner,
  };
  const executed = run(m, slot, { version: 'legacy', feePayer: pool.authority, instructions: [ix] }, 60_000);
  const tx = executed.stored;
  const ixIndex = executed.prefix;
  const fact: LiquidityFact = {
    kind,
    event_id: `${tx.signature}:${ixIndex}`,
    signature: tx.signature,
    slot,
    block_time: tx.blockTime,
    tx_index: tx.txIndex,
    pool_config: pool.fact.config,
    amount_x: amountX.toString(),
    amount_y: amountY.toString(),
    vault_x_after: tokenBalance(m, a.vault_x.address).toString(),
    vault_y_after: tokenBalance(m, a.vault_y.address).toString(),
  };
  m.truth.liquidity.push(fact);
  recordVaultChange(m, executed, pool, [kind], vaultX, vaultY);
}

export function withdrawAll(m: MarketContext, pool: PoolRuntime, slot: number): void {
  liquidity(m, pool, slot, 'withdraw', 'all');
}
