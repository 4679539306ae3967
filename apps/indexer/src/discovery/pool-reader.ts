import type { TokenMetadata } from '@hadron/contracts';
import { CONFIG_SIZE, HADRON_PROGRAM_V1, HADRON_PROGRAM_V2, type HadronProgramVersion } from '@hadron/domain';
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
    // The four reads at once (the RPC client's rate limit and concurrency still apply); the discovery is as of the newest.
    const reads = await Promise.all(HADRON_PROGRAMS.flatMap(({ programId }) => CONFIG_SIZES.map(async (size) => ({ programId, read: await this.rpc.getProgramAccounts(programId, size, minSlot || undefined) }))));
    for (const { programId, read } of reads) {
      slot = Math.max(slot, read.slot);
      for (const { pubkey, account } of read.accounts) {
        const pool = account.owner === programId ? poolFromConfigAccount(programId, pubkey, account.data) : null;
        if (pool) found.set(pubkey, pool.static);
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
   * mint) is in `unreadable`, with why: decimals go into PoolDiscovered and every swap for good,
   * so they are never guessed — the caller holds that pool back and reads it again later.
   */
  async tokenMetadata(mints: readonly string[], minSlot?: number): Promise<{ tokens: Map<string, TokenMetadata>; unreadable: Map<string, string> }> {
    const unique = [...new Set(mints)];
    const metadata = unique.map(metaplexMetadataAddress);
    const { accounts } = await this.rpc.getMultipleAccounts([...unique, ...metadata], minSlot);
    const tokens = new Map<string, TokenMetadata>();
    const unreadable = new Map<string, string>();
    unique.forEach((mint, i) => {
      const mintAccount = accounts.get(mint);
      const decimals = mintAccount ? mintDecimals(mintAccount.data) : null;
      if (decimals === null) return void unreadable.set(mint, `mint ${mint}: ${mintAccount ? 'not a mint account' : 'not returned by the RPC'}`);
      const meta = accounts.get(metadata[i]);
      tokens.set(mint, tokenMetadataOf(mint, decimals, meta ? decodeMetaplexMetadata(meta.data) : null, this.tokens));
    });
    return { tokens, unreadable };
  }
}

/** Account bytes only when the Hadron program owns them (a closed account may be reassigned). */
function ownedBy(a: AccountData | null | undefined, programId: string): Uint8Array | null {
  return a && a.owner === programId ? a.data : null;
}
