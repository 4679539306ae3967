import { createHash } from 'node:crypto';
import { decodePubkey, encodeBase58 } from './base58';
import { isOnEd25519Curve } from './ed25519-curve';
import { ASSOCIATED_TOKEN_PROGRAM } from './program-ids';

/** Solana program-derived addresses, as `Pubkey::find_program_address` computes them. */

export interface DerivedAddress {
  address: string;
  bump: number;
}

/** A seed: raw bytes, or a base58 public key passed as its 32 bytes. */
export type Seed = Uint8Array | { pubkey: string };

const MAX_SEEDS = 16; // including the bump
const MAX_SEED_LEN = 32;
const UTF8 = new TextEncoder();
const PDA_MARKER = UTF8.encode('ProgramDerivedAddress');

/** sha256(seeds ‖ programId ‖ "ProgramDerivedAddress"), or null when that lands on the curve. */
export function createProgramAddress(seeds: readonly Seed[], programId: string): string | null {
  const bytes = seeds.map(seedBytes);
  if (bytes.length > MAX_SEEDS) throw new RangeError(`at most ${MAX_SEEDS} seeds`);
  const hash = createHash('sha256');
  for (const seed of bytes) {
    if (seed.length > MAX_SEED_LEN) throw new RangeError(`seed longer than ${MAX_SEED_LEN} bytes`);
    hash.update(seed);
  }
  const address = hash.update(decodePubkey(programId)).update(PDA_MARKER).digest();
  return isOnEd25519Curve(address) ? null : encodeBase58(address);
}

/** The first off-curve address trying bumps 255, 254, … 0 (the bump is the last seed). */
export function findProgramAddress(seeds: readonly Seed[], programId: string): DerivedAddress {
  if (seeds.length >= MAX_SEEDS) throw new RangeError(`at most ${MAX_SEEDS - 1} seeds besides the bump`);
  for (let bump = 255; bump >= 0; bump--) {
    const address = createProgramAddress([...seeds, Uint8Array.of(bump)], programId);
    if (address !== null) return { address, bump };
  }
  throw new RangeError('no viable bump for these seeds'); // probability ~2^-256
}

/** Associated token account: seeds [owner, token program, mint] under the ATA program. */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string): DerivedAddress {
  return findProgramAddress([{ pubkey: owner }, { pubkey: tokenProgram }, { pubkey: mint }], ASSOCIATED_TOKEN_PROGRAM);
}

export const utf8Seed = (text: string): Uint8Array => UTF8.encode(text);

export function u64LeSeed(value: bigint): Uint8Array {
  if (BigInt.asUintN(64, value) !== value) throw new RangeError(`not a u64: ${value}`);
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, true);
  return bytes;
}

function seedBytes(seed: Seed): Uint8Array {
  return seed instanceof Uint8Array ? seed : decodePubkey(seed.pubkey);
}
