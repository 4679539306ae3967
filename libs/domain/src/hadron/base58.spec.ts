import { decodeBase58, decodePubkey, encodeBase58, tryDecodeBase58 } from './base58';
import { instructionVectors } from './testing/golden-vectors';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

describe('base58', () => {
  const vectors = [...instructionVectors.cases, ...instructionVectors.negative_cases];

  it.each(vectors.map((c) => [c.name, c] as const))('matches the golden encoding of %s', (_name, c) => {
    expect(hex(decodeBase58(c.data_base58))).toBe(c.data_hex);
    expect(encodeBase58(Buffer.from(c.data_hex, 'hex'))).toBe(c.data_base58);
  });

  it('keeps every leading zero byte as a leading 1', () => {
    expect(encodeBase58(new Uint8Array(32))).toBe('11111111111111111111111111111111');
    expect(decodePubkey('11111111111111111111111111111111')).toEqual(new Uint8Array(32));
    expect(hex(decodeBase58('1112'))).toBe('00000001');
    expect(encodeBase58(Uint8Array.of(0, 0, 0, 1))).toBe('1112');
    expect(encodeBase58(new Uint8Array(0))).toBe('');
  });

  it('round-trips pseudo-random bytes of every length up to 80, with and without leading zeros', () => {
    let seed = 12345;
    const next = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    for (let len = 0; len <= 80; len++) {
      for (const zeros of [0, 1, 3]) {
        const bytes = Uint8Array.from({ length: len }, (_, i) => (i < zeros ? 0 : next()));
        expect(decodeBase58(encodeBase58(bytes))).toEqual(bytes);
      }
    }
  });

  it('rejects characters outside the alphabet (0, O, I, l, non-ASCII)', () => {
    for (const bad of ['0', 'O', 'I', 'l', '2é', ' 2']) expect(tryDecodeBase58(bad)).toBeNull();
    expect(() => decodeBase58('0OIl')).toThrow(RangeError);
  });

  it('insists a public key is 32 bytes', () => {
    expect(() => decodePubkey('2')).toThrow(RangeError);
    expect(encodeBase58(decodePubkey('So11111111111111111111111111111111111111112'))).toBe('So11111111111111111111111111111111111111112');
  });
});
