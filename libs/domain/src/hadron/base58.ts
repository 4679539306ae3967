import bs58 from 'bs58';

/**
 * Bitcoin-alphabet base58, as Solana uses for keys, signatures and instruction data: bs58 (the
 * codec web3.js itself uses), behind the names the rest of the code calls. Each leading zero byte
 * is one leading '1', and back.
 */

export function encodeBase58(bytes: Uint8Array): string {
  return bs58.encode(bytes);
}

/** Decodes base58 text, or returns null when a character is outside the alphabet. */
export function tryDecodeBase58(text: string): Uint8Array | null {
  return bs58.decodeUnsafe(text) ?? null;
}

export function decodeBase58(text: string): Uint8Array {
  const bytes = tryDecodeBase58(text);
  if (bytes === null) throw new RangeError(`not base58: ${JSON.stringify(text.slice(0, 64))}`);
  return bytes;
}

/** A 32-byte public key from its base58 text. */
export function decodePubkey(text: string): Uint8Array {
  const bytes = decodeBase58(text);
  if (bytes.length !== 32) throw new RangeError(`not a 32-byte public key: ${text}`);
  return bytes;
}
