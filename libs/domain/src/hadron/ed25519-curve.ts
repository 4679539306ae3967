/**
 * Whether 32 bytes are a compressed ed25519 point. A program address must NOT be one (no private
 * key can exist for it). Same rule as the runtime's `bytes_are_curve_point` (curve25519-dalek):
 * y = the low 255 bits (reduced mod p), and the point exists iff x² = (y² − 1) / (d·y² + 1) has a
 * square root mod p. The sign bit only picks ±x, so it is ignored. Not constant-time: public data.
 */

const P = (1n << 255n) - 19n;
const D = mod(-121665n * modPow(121666n, P - 2n)); // −121665/121666
const HALF_P_MINUS_1 = (P - 1n) / 2n;

export function isOnEd25519Curve(bytes: Uint8Array): boolean {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i] & 0x7f : bytes[i]);
  const y2 = mod(y * y);
  const u = mod(y2 - 1n);
  const v = mod(D * y2 + 1n); // never 0: d is not a square mod p
  // u/v is a square iff u·v is (v⁻¹ has the same quadratic character as v). Euler's criterion.
  const chi = modPow(mod(u * v), HALF_P_MINUS_1);
  return chi === 0n || chi === 1n;
}

function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}

function modPow(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}
