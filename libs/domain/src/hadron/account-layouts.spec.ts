import { decodeConfigAccount, decodeConfigV2Tail, encodeConfigAccount, type PoolConfigAccount } from './config-account.layout';
import { HadronDecodeError } from './decode-error';
import { decodeFeeConfigAccount, encodeFeeConfigAccount, type FeeConfigAccount } from './fee-config-account.layout';
import { decodeFeeSplit, encodeFeeSplit } from './fee-split.layout';
import { decodeOracleAccount, encodeOracleAccount, type OracleAccount } from './oracle-account.layout';
import { derivePoolAddresses } from './pool-addresses';
import { poolStateName, publishedPoolState } from './pool-state';
import { programVersionOf } from './program-ids';
import { accountVectors, bytesOf, pdaVectors } from './testing/golden-vectors';

const U64_MAX = '18446744073709551615';
const P53 = '9007199254740993';
const FEE_RECIPIENT_V1 = '7fwqJJhGazsXcMhcwzAjtc2KsKNpbktsxDFbGN3RzYuQ';
const FEE_RECIPIENT_V2 = '7Ly5vZTDz2ZJGrqTa9gCP2NWjFDvnxSLVQEdmvMcVaVn';

/** The fixture's expected object minus what the layout does not produce (prose and derived values). */
function layoutFields(expected: Record<string, unknown>): Record<string, unknown> {
  const { state_name_assumed: _s, v2_tail_single_source: _t, derived: _d, ...fields } = expected;
  return fields;
}

describe('config account — golden vectors', () => {
  const configs = accountVectors.cases.filter((c) => c.kind === 'config');

  it.each(configs.map((c) => [c.name, c] as const))('decodes %s', (_name, c) => {
    const data = bytesOf(c);
    expect(decodeConfigAccount(data)).toEqual(layoutFields(c.expected));
    if (c.expected.v2_tail_single_source) expect(decodeConfigV2Tail(data)).toEqual(c.expected.v2_tail_single_source);
    if (c.expected.state_name_assumed) expect(poolStateName(c.expected.state as number)).toBe(c.expected.state_name_assumed);
  });

  it.each(configs.map((c) => [c.name, c] as const))('%s lives at the config PDA of its own seed and mints, owned by the program of its version', (_name, c) => {
    const config = decodeConfigAccount(bytesOf(c));
    expect(bytesOf(c).length).toBe(c.data_len);
    expect(programVersionOf(c.owner)).toBe(config.version);
    const pdas = derivePoolAddresses(c.owner, BigInt(config.seed), config.mint_x, config.mint_y, config.token_program_x, config.token_program_y);
    expect({ address: c.address, bump: config.bump, curve_meta: config.curve_meta }).toEqual({
      address: pdas.config.address,
      bump: pdas.config.bump,
      curve_meta: pdas.curve_meta.address,
    });
    const tail = decodeConfigV2Tail(bytesOf(c));
    // [A] v2 stores the prefabs account at config+430; where the vector fills it, it is the prefabs PDA.
    if (c.expected.v2_tail_single_source) expect(tail?.curve_prefabs_at_430).toBe(pdas.curve_prefabs.address);
  });

  it('re-encodes v1 and zero-tail v2 configs byte for byte, and drops the unknown v2 tail', () => {
    for (const c of configs) {
      const data = bytesOf(c);
      const config = decodeConfigAccount(data);
      const tail = decodeConfigV2Tail(data) ?? undefined;
      const encoded = encodeConfigAccount(config, tail);
      expect(decodeConfigAccount(encoded)).toEqual(config);
      expect(decodeConfigV2Tail(encoded) ?? undefined).toEqual(tail);
      if (c.name !== 'config_v2_tail_filled') expect(Buffer.from(encoded).equals(Buffer.from(data))).toBe(true);
    }
  });

  it('has no v2 tail on a v1 config', () => {
    expect(decodeConfigV2Tail(bytesOf(configs.find((c) => c.expected.version === 'v1')!))).toBeNull();
  });

  it('names pool states; only 1 = Initialized is confirmed', () => {
    expect([0, 1, 2, 3, 4, 5].map(poolStateName)).toEqual(['Uninitialized', 'Initialized', 'Paused', 'RejectSwaps', 'Closed', null]);
  });

  it('publishes an unknown state byte as Uninitialized (never a state that trades), known ones by name', () => {
    expect([0, 1, 2, 3, 4, 5, 255].map(publishedPoolState)).toEqual([
      'Uninitialized',
      'Initialized',
      'Paused',
      'RejectSwaps',
      'Closed',
      'Uninitialized',
      'Uninitialized',
    ]);
  });
});

describe('oracle account — golden vectors', () => {
  const oracles = accountVectors.cases.filter((c) => c.kind === 'oracle');

  it.each(oracles.map((c) => [c.name, c] as const))('decodes %s', (_name, c) => {
    expect(decodeOracleAccount(bytesOf(c))).toEqual(layoutFields(c.expected));
  });

  it.each(oracles.map((c) => [c.name, c] as const))(
    '%s is owned by the program of its version and, when it has an address, is a pool oracle PDA',
    (_name, c) => {
      const oracle = decodeOracleAccount(bytesOf(c));
      expect(bytesOf(c).length).toBe(c.data_len);
      expect(programVersionOf(c.owner)).toBe(oracle.version);
      if (c.address === null) return;
      const pool = pdaVectors.pools.find((p) => p.midprice_oracle.address === c.address);
      expect(pool?.program).toBe(c.owner);
    },
  );

  it('re-encodes a v1 oracle byte for byte', () => {
    for (const c of oracles.filter((o) => o.expected.version === 'v1')) {
      expect(Buffer.from(encodeOracleAccount(decodeOracleAccount(bytesOf(c)))).equals(Buffer.from(bytesOf(c)))).toBe(true);
    }
  });
});

describe('account sizes', () => {
  it.each(accountVectors.negative_cases.map((c) => [c.name, c] as const))('rejects %s as invalid_size', (_name, c) => {
    expect(bytesOf(c).length).toBe(c.data_len);
    expect(programVersionOf(c.owner)).not.toBeNull();
    const decode = c.kind === 'config' ? decodeConfigAccount : decodeOracleAccount;
    expect(() => decode(bytesOf(c))).toThrow(expect.objectContaining({ code: c.expected_error }));
    expect(() => decode(bytesOf(c))).toThrow(HadronDecodeError);
  });

  it('rejects a fee config that is neither 72 nor 686 bytes', () => {
    expect(() => decodeFeeConfigAccount(new Uint8Array(73))).toThrow(expect.objectContaining({ code: 'invalid_size' }));
    expect(() => decodeFeeSplit(new Uint8Array(100))).toThrow(expect.objectContaining({ code: 'invalid_size' }));
  });
});

describe('layout round trips at the edges (u64 max, 2^53 + 1)', () => {
  const config: PoolConfigAccount = {
    version: 'v2',
    size: 724,
    state: 4,
    seed: U64_MAX,
    authority: FEE_RECIPIENT_V1,
    mint_x: 'So11111111111111111111111111111111111111112',
    mint_y: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    bump: 255,
    curve_meta: FEE_RECIPIENT_V2,
    spread_config_initialized: 1,
    delta_staleness: 255,
    oracle_mode: 1,
    has_pool_fee: 1,
    padding_hex: 'ab01',
    pending_authority: '11111111111111111111111111111111',
    nomination_expiry: P53,
    token_program_x: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
    token_program_y: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  };

  it('config v1 and v2 (with the single-source tail)', () => {
    const tail = { u64_at_422: P53, curve_prefabs_at_430: FEE_RECIPIENT_V1 };
    const v2 = encodeConfigAccount(config, tail);
    expect(decodeConfigAccount(v2)).toEqual(config);
    expect(decodeConfigV2Tail(v2)).toEqual(tail);
    const v1 = { ...config, version: 'v1' as const, size: 248 };
    expect(decodeConfigAccount(encodeConfigAccount(v1))).toEqual(v1);
    expect(() => encodeConfigAccount(v1, tail)).toThrow(RangeError);
    expect(() => encodeConfigAccount({ ...config, seed: '18446744073709551616' })).toThrow(RangeError);
  });

  it('oracle v1 and v2', () => {
    const oracle: OracleAccount = {
      version: 'v2',
      size: 128,
      quoting_authority: FEE_RECIPIENT_V2,
      sequence: U64_MAX,
      midprice_q32: P53,
      spread_factor_q32: U64_MAX,
      last_update_slot: P53,
    };
    expect(decodeOracleAccount(encodeOracleAccount(oracle))).toEqual(oracle);
    const v1 = { ...oracle, version: 'v1' as const, size: 64 };
    expect(decodeOracleAccount(encodeOracleAccount(v1))).toEqual(v1);
  });

  it('fee config v1 (72 bytes [C]): fee_ppm u32 @1, bump @5, admin @8, recipient @40', () => {
    const fee: FeeConfigAccount = {
      version: 'v1',
      size: 72,
      initialized: 1,
      fee_ppm: 4_294_967_295,
      bump: 254,
      admin: FEE_RECIPIENT_V2,
      fee_recipient: FEE_RECIPIENT_V1,
    };
    const data = encodeFeeConfigAccount(fee);
    expect(Buffer.from(data.subarray(0, 8)).toString('hex')).toBe('01fffffffffe0000');
    expect(decodeFeeConfigAccount(data)).toEqual(fee);
    expect(decodeFeeSplit(data)).toEqual([]);
    expect(() => encodeFeeSplit(fee, [])).toThrow(RangeError);
  });
});

describe('fee split (ASSUMED v2 tail layout)', () => {
  const feeV2: FeeConfigAccount = {
    version: 'v2',
    size: 686,
    initialized: 1,
    fee_ppm: 10,
    bump: 255,
    admin: FEE_RECIPIENT_V1,
    fee_recipient: FEE_RECIPIENT_V2,
  };

  it('reads a zero tail as the default single recipient', () => {
    const data = encodeFeeConfigAccount(feeV2);
    expect(data.length).toBe(686);
    expect(decodeFeeConfigAccount(data)).toEqual(feeV2);
    expect(decodeFeeSplit(data)).toEqual([]);
  });

  it('round-trips several recipients, up to the 17 that fit', () => {
    const split = [
      { recipient: FEE_RECIPIENT_V1, ppm: 700_000 },
      { recipient: FEE_RECIPIENT_V2, ppm: 300_000 },
    ];
    const data = encodeFeeSplit(feeV2, split);
    expect(decodeFeeConfigAccount(data)).toEqual(feeV2);
    expect(decodeFeeSplit(data)).toEqual(split);
    const full = Array.from({ length: 17 }, (_, i) => ({ recipient: FEE_RECIPIENT_V1, ppm: i }));
    expect(decodeFeeSplit(encodeFeeSplit(feeV2, full))).toEqual(full);
    expect(() => encodeFeeSplit(feeV2, [...full, full[0]])).toThrow(RangeError);
  });

  it('reports a count that runs past the account as truncated', () => {
    const data = encodeFeeConfigAccount(feeV2);
    data[72] = 18;
    expect(() => decodeFeeSplit(data)).toThrow(expect.objectContaining({ code: 'truncated' }));
  });
});
