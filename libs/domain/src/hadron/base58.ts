/**
 * Bitcoin-alphabet base58, as Solana uses for keys, signatures and instruction data. A byte loop
 * (base conversion 256 ↔ 58) rather than bigint: inputs are short, and this runs per instruction.
 * Each leading zero byte is one leading '1', and back.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT_OF[ALPHABET.charCodeAt(i)] = i;

export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // log(256) / log(58) ≈ 1.366 base58 digits per byte.
  const digits = new Uint8Array((((bytes.length - zeros) * 138) / 100 + 1) | 0);
  let used = 0;
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    let j = 0;
    for (let k = digits.length - 1; (carry !== 0 || j < used) && k >= 0; k--, j++) {
      carry += 256 * digits[k];
      digits[k] = carry % 58;
      carry = (carry / 58) | 0;
    }
    used = j;
  }
  let out = '1'.repeat(zeros);
  for (let k = digits.length - used; k < digits.length; k++) out += ALPHABET[digits[k]];
  return out;
}

/** Decodes base58 text, or returns null when a character is outside the alphabet. */
export function tryDecodeBase58(text: string): Uint8Array | null {
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49 /* '1' */) zeros++;
  // log(58) / log(256) ≈ 0.733 bytes per base58 digit.
  const bytes = new Uint8Array((((text.length - zeros) * 733) / 1000 + 1) | 0);
  let used = 0;
  for (let i = zeros; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let carry = code < 128 ? DIGIT_OF[code] : -1;
    if (carry < 0) return null;
    let j = 0;
    for (let k = bytes.length - 1; (carry !== 0 || j < used) && k >= 0; k--, j++) {
      carry += 58 * bytes[k];
      bytes[k] = carry & 0xff;
      carry >>= 8;
    }
    used = j;
  }
  const out = new Uint8Array(zeros + used);
  out.set(bytes.subarray(bytes.length - used), zeros);
  return out;
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
