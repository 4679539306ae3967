import type { DecodeContext } from './decode-context';
import type { VaultBalancesFact } from './transaction-facts';
import type { TransactionView } from './transaction-view';

/**
 * A VaultBalancesChanged fact for each known pool whose vault balance the transaction changed
 * (DESIGN §2: whatever the tag). A vault is recognised by its address — the config PDA's ATA —
 * not by the optional `owner` of its balance entry. A vault listed with the same balance before
 * and after did not change; one created by the transaction counts as 0 before. The fact carries
 * both vaults' end-of-transaction balances when listed.
 */
export function vaultBalancesOf(tx: TransactionView, ctx: DecodeContext): VaultBalancesFact[] {
  const facts: VaultBalancesFact[] = [];
  const changed = new Set<string>();
  for (const balance of tx.meta.postTokenBalances ?? []) {
    const key = tx.keys[balance.accountIndex];
    const config = key === undefined ? undefined : ctx.poolByVault.get(key);
    const pool = config === undefined ? undefined : ctx.pools.get(config);
    if (config === undefined || !pool) continue;
    let fact = facts.find((f) => f.poolConfig === config);
    if (!fact) {
      fact = {
        kind: 'vault_balances',
        poolConfig: config,
        signature: tx.signature,
        slot: tx.result.slot,
        blockTime: tx.result.blockTime ?? null,
        vaultX: pool.vaultX,
        vaultY: pool.vaultY,
        vaultXAfter: null,
        vaultYAfter: null,
      };
      facts.push(fact);
    }
    const after = balance.uiTokenAmount.amount;
    if (key === pool.vaultX) fact.vaultXAfter = after;
    else fact.vaultYAfter = after;
    if (BigInt(after) !== tx.preAmount(balance.accountIndex)) changed.add(config);
  }
  return facts.filter((f) => changed.has(f.poolConfig));
}
