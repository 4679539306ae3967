import type { TokenMetadata } from '@hadron/contracts';
import { CONFIG_SIZE, HADRON_PROGRAM_V1, HADRON_PROGRAM_V2, type HadronProgramVersion } from '@hadron/domain';
import { RpcFailure } from '../source/retry-policy';
import type { AccountData, SolanaRpc } from '../source/solana-rpc';
import type { TokenList } from '../tokens/token-list';
import { accountStateOf, poolFromConfigAccount, snapshotAddresses, type AccountState, type PoolStatic } from './pool-accounts';
import { decodeMetaplexMetadata, metaplexMetadataAddress, mintDecimals, tokenMetadataOf } from './token-metadata';

export const HADRON_PROGRAMS: readonly { programId: string; version: HadronProgramVersion }[] = [
  { programId: HADRON_PROGRAM_V1, version: 'v1' },
  { programId: HADRON_PROGRAM_V2, version: 'v2' },
];

/** Every pool's account state read at one slot. */
export interface AccountsSnapshot {
  slot: number;
  /** Config address → state; a pool whose config is gone is absent. */
  pools: Record<string, AccountState>;
}

export interface DiscoveredPool {
  static: PoolStatic;
  tokens: { x: TokenMetadata; y: TokenMetadata };
}

const SNAPSHOT_ATTEMPTS = 3;
const CONFIG_SIZES = [...new Set(Object.values(CONFIG_SIZE))];

/** Reads pools over RPC: discovery (getProgramAccounts), account snapshots, token metadata. */
export class PoolReader {
  constructor(
    private readonly rpc: SolanaRpc,
    private readonly tokens: TokenList,
  ) {}

  /**
   * Every Hadron config account that sits at its own config PDA, read at a slot ≥ minSlot. Both
   * sizes (248 and 724 B) on both programs: which program keeps which size is not something to
   * bet pools on, and the PDA check drops any other account of the same size.
   */
  async discover(minSlot?: number): Promise<{ slot: number; pools: PoolStatic[] }> {
    const found = new Map<string, PoolStatic>();
    let slot = minSlot ?? 0;
    for (const { programId } of HADRON_PROGRAMS) {
      for (const size of CONFIG_SIZES) {
        const read = await this.rpc.getProgramAccounts(programId, size, slot > 0 ? slot : undefined);
        slot = Math.max(slot, read.slot);
        for (const { pubkey, account } of read.accounts) {
          const pool = account.owner === programId ? poolFromConfigAccount(programId, pubkey, account.data) : null;
          if (pool) found.set(pubkey, pool.static);
        }
      }
    }
    const pools = [...found.values()];
    pools.sort((a, b) => (a.config < b.config ? -1 : a.config > b.config ? 1 : 0));
    return { slot, pools };
  }

  /**
   * Config, oracle and fee config of every pool, in one JSON-RPC batch, at a slot ≥ minSlot. The
   * calls of a batch normally share their context slot; if they do not, read again (twice), then
   * take the newest: a state read a slot early is the price of a moving chain.
   */
  async snapshot(pools: readonly PoolStatic[], minSlot?: number): Promise<AccountsSnapshot> {
    const addresses = [...new Set(pools.flatMap(snapshotAddresses))];
    let read = await this.rpc.getMultipleAccounts(addresses, minSlot);
    for (let i = 1; i < SNAPSHOT_ATTEMPTS && new Set(read.slots).size > 1; i++) read = await this.rpc.getMultipleAccounts(addresses, Math.max(...read.slots));
    const out: Record<string, AccountState> = {};
    for (const p of pools) {
      const state = accountStateOf(p, (a) => ownedBy(read.accounts.get(a), p.programId));
      if (state) out[p.config] = state;
    }
    return { slot: read.slots.length ? Math.max(...read.slots) : (minSlot ?? 0), pools: out };
  }

  /**
   * Decimals (mint), name/symbol (Metaplex, else the token list) and icon (token list) of each
   * mint, read at a slot ≥ minSlot. A mint the RPC does not return (or that does not read as a
   * mint) fails the call, to be retried: decimals go into PoolDiscovered and every swap for good,
   * so they are never guessed.
   */
  async tokenMetadata(mints: readonly string[], minSlot?: number): Promise<Map<string, TokenMetadata>> {
    const unique = [...new Set(mints)];
    const metadata = unique.map(metaplexMetadataAddress);
    const { accounts } = await this.rpc.getMultipleAccounts([...unique, ...metadata], minSlot);
    const out = new Map<string, TokenMetadata>();
    unique.forEach((mint, i) => {
      const mintAccount = accounts.get(mint);
      const decimals = mintAccount ? mintDecimals(mintAccount.data) : null;
      if (decimals === null) throw new RpcFailure('missing', `mint ${mint}: ${mintAccount ? 'not a mint account' : 'not returned by the RPC'}; its decimals are needed before the pool is announced`, true);
      const meta = accounts.get(metadata[i]);
      out.set(mint, tokenMetadataOf(mint, decimals, meta ? decodeMetaplexMetadata(meta.data) : null, this.tokens));
    });
    return out;
  }
}

/** Account bytes only when the Hadron program owns them (a closed account may be reassigned). */
function ownedBy(a: AccountData | null | undefined, programId: string): Uint8Array | null {
  return a && a.owner === programId ? a.data : null;
}
