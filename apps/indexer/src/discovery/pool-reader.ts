import type { TokenMetadata } from '@hadron/contracts';
import { CONFIG_SIZE, HADRON_PROGRAM_V1, HADRON_PROGRAM_V2, type HadronProgramVersion } from '@hadron/domain';
import type { AccountData, SolanaRpc } from '../source/solana-rpc';
import type { TokenList } from '../tokens/token-list';
import { accountStateOf, poolFromConfigAccount, snapshotAddresses, type AccountState, type PoolStatic } from './pool-accounts';
import { readMetadataAccount, readMintAccount, type MintInfo } from '../source/token-accounts';
import { metaplexMetadataAddress, tokenMetadataOf, type OnChainMetadata } from './token-metadata';

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
    const reads = await Promise.all(
      HADRON_PROGRAMS.flatMap(({ programId }) =>
        CONFIG_SIZES.map(async (size) => ({ programId, read: await this.rpc.getProgramAccounts(programId, size, minSlot || undefined) })),
      ),
    );
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
   * Decimals, name/symbol and icon of each mint, read at a slot ≥ minSlot. Decimals come from the
   * mint (SPL Token or Token-2022). Name and symbol, in this order: the Token-2022 TokenMetadata
   * extension in the mint; the account its MetadataPointer names, when that is another account;
   * the Metaplex metadata PDA. A curated token-list entry overrides them, and supplies the icon.
   * Two batched reads at most: mints with their Metaplex PDAs, then the pointer targets not read
   * yet. A mint the RPC does not return (or that does not read as a mint) is in `unreadable`, with
   * why: decimals go into PoolDiscovered and every swap for good, so they are never guessed — the
   * caller holds that pool back and reads it again later.
   */
  async tokenMetadata(
    mints: readonly string[],
    minSlot?: number,
  ): Promise<{ slot: number; tokens: Map<string, TokenMetadata>; unreadable: Map<string, string> }> {
    const unique = [...new Set(mints)];
    const metaplex = new Map(unique.map((m) => [m, metaplexMetadataAddress(m)]));
    const first = await this.rpc.getMultipleAccounts([...unique, ...metaplex.values()], minSlot);
    const accounts = new Map(first.accounts);
    const mintInfo = new Map<string, MintInfo>();
    const unreadable = new Map<string, string>();
    for (const mint of unique) {
      const read = readMintAccount(mint, accounts.get(mint));
      if (read.ok) mintInfo.set(mint, read.mint);
      else unreadable.set(mint, read.why);
    }
    const targets = [
      ...new Set([...mintInfo.values()].flatMap((m) => (m.inMint === null && m.pointer !== null && !accounts.has(m.pointer) ? [m.pointer] : []))),
    ];
    if (targets.length > 0) for (const [address, account] of (await this.rpc.getMultipleAccounts(targets, minSlot)).accounts) accounts.set(address, account);
    const tokens = new Map<string, TokenMetadata>();
    for (const [mint, info] of mintInfo) {
      const pointed =
        info.inMint === null && info.pointer !== null && info.pointer !== mint ? readMetadataAccount(mint, info.pointer, accounts.get(info.pointer)) : null;
      const metadata: OnChainMetadata | null = info.inMint ?? pointed ?? readMetadataAccount(mint, metaplex.get(mint)!, accounts.get(metaplex.get(mint)!));
      tokens.set(mint, tokenMetadataOf(mint, info.decimals, metadata, this.tokens));
    }
    return { slot: Math.max(minSlot ?? 0, ...first.slots), tokens, unreadable };
  }
}

/** Account bytes only when the Hadron program owns them (a closed account may be reassigned). */
function ownedBy(a: AccountData | null | undefined, programId: string): Uint8Array | null {
  return a && a.owner === programId ? a.data : null;
}
