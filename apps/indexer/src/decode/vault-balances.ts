import type { DecodeContext } from './decode-context';
import type { VaultBalancesFact } from './transaction-facts';
import type { TransactionView } from './transaction-view';

/**
 * End-of-transaction balances of every known pool vault the transaction lists. A vault is the
 * config PDA's token account, so its balance entry's `owner` is the pool config.
 */
export function vaultBalancesOf(tx: TransactionView, ctx: DecodeContext): VaultBalancesFact[] {
  const facts: VaultBalancesFact[] = [];
  for (const balance of tx.meta.postTokenBalances ?? []) {
    const owner = balance.owner;
    const pool = owner === undefined ? undefined : ctx.pools.get(owner);
    if (owner === undefined || !pool) continue;
    const key = tx.keys[balance.accountIndex];
    if (key !== pool.vaultX && key !== pool.vaultY) continue;
    let fact = facts.find((f) => f.pool_config === owner);
    if (!fact) {
      fact = {
        kind: 'vault_balances',
        pool_config: owner,
        signature: tx.signature,
        slot: tx.result.slot,
        block_time: tx.result.blockTime ?? null,
        vault_x: pool.vaultX,
        vault_y: pool.vaultY,
        vault_x_after: null,
        vault_y_after: null,
      };
      facts.push(fact);
    }
    if (key === pool.vaultX) fact.vault_x_after = balance.uiTokenAmount.amount;
    else fact.vault_y_after = balance.uiTokenAmount.amount;
  }
  return facts;
}
