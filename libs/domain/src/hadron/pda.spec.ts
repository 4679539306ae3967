import { decodePubkey } from './base58';
import { isOnEd25519Curve } from './ed25519-curve';
import { associatedTokenAddress, createProgramAddress, findProgramAddress, u64LeSeed, utf8Seed } from './pda';
import { derivePoolAddresses, globalFeeConfigAddress, spreadConfigAddress } from './pool-addresses';
import { HADRON_PROGRAM_V1, programVersionOf, SPL_TOKEN_PROGRAM } from './program-ids';
import { pdaVectors, type SeedSpec } from './testing/golden-vectors';

const FEE_RECIPIENT = '7fwqJJhGazsXcMhcwzAjtc2KsKNpbktsxDFbGN3RzYuQ';
const pick = ({ address, bump }: { address: string; bump: number }) => ({ address, bump });

describe('program-derived addresses — golden vectors', () => {
  it.each(pdaVectors.global_fee_config.map((c) => [c.program, c] as const))('global fee config of %s', (program, c) => {
    expect(globalFeeConfigAddress(program)).toEqual(pick(c));
  });

  it.each(pdaVectors.pools.map((p) => [`${p.program_version} seed ${p.seed}`, p] as const))('every account of pool %s', (_name, p) => {
    const derived = derivePoolAddresses(p.program, BigInt(p.seed), p.mint_x, p.mint_y, p.vault_x.token_program, p.vault_y.token_program);
    expect(derived).toEqual({
      config: pick(p.config),
      midprice_oracle: pick(p.midprice_oracle),
      curve_meta: pick(p.curve_meta),
      curve_prefabs: pick(p.curve_prefabs),
      curve_updates: pick(p.curve_updates),
      pool_fee_config: pick(p.pool_fee_config),
      spread_config: pick(p.spread_config),
      vault_x: pick(p.vault_x),
      vault_y: pick(p.vault_y),
    });
  });

  it.each(pdaVectors.fee_recipient_atas.map((a) => [a.address, a] as const))('fee recipient ATA %s', (_address, a) => {
    expect(associatedTokenAddress(a.fee_recipient, a.mint, a.token_program)).toEqual(pick(a));
  });

  it('reproduces the third-party mainnet cross-checks', () => {
    for (const check of pdaVectors.third_party_crosschecks.checks) {
      const { owner, mint, token_program, config, program } = check.inputs;
      const derived = config ? spreadConfigAddress(program, config) : associatedTokenAddress(owner, mint, token_program);
      expect(derived.address).toBe(check.third_party_value);
    }
  });
});

/** A seed list as pdas.json spells it, in the form our PDA helper takes. */
function seedsOf(specs: readonly SeedSpec[]): (Uint8Array | { pubkey: string })[] {
  return specs.map((spec) => {
    if ('utf8' in spec) return utf8Seed(spec.utf8);
    if ('u64_le_hex' in spec) return new Uint8Array(Buffer.from(spec.u64_le_hex, 'hex'));
    return { pubkey: spec.pubkey };
  });
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('program-derived addresses — every field of the vectors', () => {
  it.each(pdaVectors.pools.map((p) => [`${p.program_version} seed ${p.seed}`, p] as const))(
    'pool %s: program version, seed bytes and each spelled-out seed list',
    (_name, p) => {
      expect(programVersionOf(p.program)).toBe(p.program_version);
      expect(hex(u64LeSeed(BigInt(p.seed)))).toBe(p.seed_le_hex);
      const prefixes = {
        config: 'hadron-config',
        midprice_oracle: 'hadron-midprice',
        curve_meta: 'hadron-curve-meta',
        curve_prefabs: 'hadron-curve-prefabs',
        curve_updates: 'hadron-curve-updates',
      } as const;
      for (const [field, prefix] of Object.entries(prefixes) as [keyof typeof prefixes, string][]) {
        const pda = p[field];
        // The seeds DESIGN §2 names: [prefix, seed u64 LE, mint_x, mint_y].
        expect(pda.seeds).toEqual([{ utf8: prefix }, { u64_le_hex: p.seed_le_hex, value: p.seed }, { pubkey: p.mint_x }, { pubkey: p.mint_y }]);
        expect(findProgramAddress(seedsOf(pda.seeds!), p.program)).toEqual(pick(pda));
      }
      for (const [field, prefix] of [
        ['pool_fee_config', 'fee_config'],
        ['spread_config', 'spread_config'],
      ] as const) {
        expect(p[field].seeds).toEqual([{ utf8: prefix }, { pubkey: p.config.address }]);
        expect(findProgramAddress(seedsOf(p[field].seeds!), p.program)).toEqual(pick(p[field]));
      }
      // Vaults: the config PDA's ATAs of each mint.
      expect([p.vault_x.owner, p.vault_x.mint, p.vault_y.owner, p.vault_y.mint]).toEqual([p.config.address, p.mint_x, p.config.address, p.mint_y]);
      expect(associatedTokenAddress(p.vault_x.owner, p.vault_x.mint, p.vault_x.token_program)).toEqual(pick(p.vault_x));
    },
  );

  it.each(pdaVectors.global_fee_config.map((c) => [c.program_version, c] as const))(
    'global fee config %s: its seed list and the published constant',
    (_v, c) => {
      expect(programVersionOf(c.program)).toBe(c.program_version);
      expect(findProgramAddress(seedsOf(c.seeds!), c.program)).toEqual(pick(c));
      expect([c.address, c.matches_expected]).toEqual([c.expected_address, true]);
    },
  );

  it('third-party cross-checks: our derivation is the one recorded and equals the third party value', () => {
    for (const check of pdaVectors.third_party_crosschecks.checks) {
      const { owner, mint, token_program, config, program } = check.inputs;
      const derived = config ? spreadConfigAddress(program, config) : associatedTokenAddress(owner, mint, token_program);
      expect([derived.address, check.matches]).toEqual([check.derived, true]);
    }
  });
});

describe('program-derived addresses — the curve rule', () => {
  it('skips bumps whose hash is a curve point (bump < 255 means 255.. were on the curve)', () => {
    const pool = pdaVectors.pools.find((p) => p.vault_x.bump < 255)!;
    const seeds = [{ pubkey: pool.config.address }, { pubkey: SPL_TOKEN_PROGRAM }, { pubkey: pool.mint_x }];
    const ata = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
    for (let bump = 255; bump > pool.vault_x.bump; bump--) expect(createProgramAddress([...seeds, Uint8Array.of(bump)], ata)).toBeNull();
    expect(createProgramAddress([...seeds, Uint8Array.of(pool.vault_x.bump)], ata)).toBe(pool.vault_x.address);
  });

  it('sees real public keys on the curve and derived addresses off it', () => {
    for (const key of ['7NCJevSNj93C9TpXb3FiJqSqzjfWeJ3rUCwGFAMjiYoS', '8MrQcBzRaiSfpjVJ8cURnJUpZRhAycnnL342A9wJgQpE', FEE_RECIPIENT]) {
      expect(isOnEd25519Curve(decodePubkey(key))).toBe(true);
    }
    for (const p of pdaVectors.pools) expect(isOnEd25519Curve(decodePubkey(p.config.address))).toBe(false);
  });

  it('follows the runtime (curve25519-dalek decompress) on encodings RFC 8032 rejects: y ≥ p, and x = 0 with the sign bit', () => {
    const point = (hex: string): boolean => isOnEd25519Curve(Buffer.from(hex, 'hex'));
    expect(point('01'.padEnd(62, '0') + '80')).toBe(true); // y = 1 (x = 0), sign bit set
    expect(point('ed'.padEnd(62, 'f') + '7f')).toBe(true); // y = p ≡ 0
    expect(point('ee'.padEnd(62, 'f') + '7f')).toBe(true); // y = p + 1 ≡ 1
    expect(point('ff'.padEnd(62, 'f') + '7f')).toBe(true); // y = 2^255 − 1 ≡ 18
    expect(point('02'.padEnd(62, '0') + '00')).toBe(false); // y = 2: no x
    expect(point('ef'.padEnd(62, 'f') + '7f')).toBe(false); // y = p + 2 ≡ 2
  });

  it('rejects seeds the runtime rejects', () => {
    expect(() => findProgramAddress([new Uint8Array(33)], HADRON_PROGRAM_V1)).toThrow(RangeError);
    expect(() =>
      findProgramAddress(
        Array.from({ length: 16 }, () => utf8Seed('x')),
        HADRON_PROGRAM_V1,
      ),
    ).toThrow(RangeError);
    expect(() => u64LeSeed(1n << 64n)).toThrow(RangeError);
  });
});
