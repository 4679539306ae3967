import { createHash } from 'node:crypto';

/**
 * A seeded PRNG (xoshiro128**, 32-bit integer state): every byte the simulator makes — keys,
 * signatures, prices, amounts, fault decisions — comes from one of these, so a seed reproduces a
 * cluster byte for byte. Streams are split by label (`fork`) so adding draws to one concern does
 * not shift the others.
 */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(readonly label: string) {
    const h = createHash('sha256').update(`hadron-sim/${label}`).digest();
    this.s0 = h.readUInt32LE(0);
    this.s1 = h.readUInt32LE(4);
    this.s2 = h.readUInt32LE(8);
    this.s3 = h.readUInt32LE(12);
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** An independent stream derived from this one's label. */
  fork(label: string): Rng {
    return new Rng(`${this.label}/${label}`);
  }

  /** Uniform u32. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9) >>> 0;
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform in [0, 1) with 53 bits. */
  float(): number {
    const hi = this.nextU32() >>> 5; // 27 bits
    const lo = this.nextU32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Uniform integer in [min, max] (inclusive), for ranges below 2^32. */
  int(min: number, max: number): number {
    if (max < min) throw new RangeError(`empty range ${min}..${max}`);
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** Uniform bigint in [0, bound). */
  bigBelow(bound: bigint): bigint {
    if (bound <= 0n) throw new RangeError('bound must be positive');
    const bits = bound.toString(2).length + 64;
    let x = 0n;
    for (let i = 0; i < bits; i += 32) x = (x << 32n) | BigInt(this.nextU32());
    return x % bound;
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.float() * items.length)];
  }

  /** Picks by weight (weights ≥ 0, not all 0). */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((a, [, w]) => a + w, 0);
    let r = this.float() * total;
    for (const [value, w] of entries) {
      if (r < w) return value;
      r -= w;
    }
    return entries[entries.length - 1][0];
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.nextU32();
      for (let k = 0; k < 4 && i + k < n; k++) out[i + k] = (v >>> (8 * k)) & 0xff;
    }
    return out;
  }

  /** Poisson-distributed count with mean `lambda` (Knuth; lambda is small here). */
  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    const limit = Math.exp(-lambda);
    let k = 0;
    let p = this.float();
    while (p > limit) {
      k++;
      p *= this.float();
    }
    return k;
  }

  /** Log-uniform in [min, max]. */
  logUniform(min: number, max: number): number {
    return Math.exp(Math.log(min) + this.float() * (Math.log(max) - Math.log(min)));
  }

  /** In-place Fisher–Yates shuffle. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
