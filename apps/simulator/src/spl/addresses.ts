import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { METAPLEX_METADATA_SEED, METAPLEX_PROGRAM } from './well-known';

/**
 * Well-known PDAs, derived with the field's own libraries (spl-token's ATA derivation, web3.js's
 * findProgramAddressSync) — never with @hadron/domain, whose derivations the indexer uses.
 * A market derives hundreds of them, each a few SHA-256 and curve checks: both are memoised
 * (pure functions of their inputs, so one cache serves every market of the process).
 */

const MAX_CACHED = 100_000;
const ataCache = new Map<string, string>();
const metaplexCache = new Map<string, string>();
const keyCache = new Map<string, PublicKey>();

function pubkey(address: string): PublicKey {
  let key = keyCache.get(address);
  if (key === undefined) {
    key = new PublicKey(address);
    remember(keyCache, address, key);
  }
  return key;
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(key, value);
}

/** The associated token account of (owner, mint) under `tokenProgram`; owners may be off curve (PDAs). */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): string {
  const id = `${owner}/${mint}/${tokenProgram}`;
  let address = ataCache.get(id);
  if (address === undefined) {
    address = getAssociatedTokenAddressSync(pubkey(mint), pubkey(owner), true, pubkey(tokenProgram)).toBase58();
    remember(ataCache, id, address);
  }
  return address;
}

/** The Metaplex metadata PDA of a mint: `["metadata", program, mint]` under the Metaplex program. */
export function metaplexMetadataAddress(mint: string): string {
  let address = metaplexCache.get(mint);
  if (address === undefined) {
    const program = pubkey(METAPLEX_PROGRAM);
    address = PublicKey.findProgramAddressSync([Buffer.from(METAPLEX_METADATA_SEED), program.toBuffer(), pubkey(mint).toBuffer()], program)[0].toBase58();
    remember(metaplexCache, mint, address);
  }
  return address;
}
