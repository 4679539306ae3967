import { ed25519 } from '@noble/curves/ed25519';

/**
 * Whether 32 bytes are a compressed ed25519 point. A program address must NOT be one (no private
 * key can exist for it). Same rule as the runtime's `bytes_are_curve_point` (curve25519-dalek
 * `decompress`): @noble/curves with zip215, which like dalek accepts a non-canonical y (≥ p, reduced
 * mod p) and x = 0 with the sign bit set; the RFC 8032 mode (web3.js's `isOnCurve`) rejects both.
 */
export function isOnEd25519Curve(bytes: Uint8Array): boolean {
  return ed25519.utils.isValidPublicKey(bytes, true);
}
