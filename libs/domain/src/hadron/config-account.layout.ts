import { readHex, readPubkey, readU64, viewOf, writeHex, writePubkey, writeU64, writeU8 } from './byte-io';
import { HadronDecodeError } from './decode-error';
import type { HadronProgramVersion } from './program-ids';

/**
 * A pool's config account [C]: v1 is 248 bytes; v2 is 724 with the same first 248. Of the v2 tail
 * only two fields have a (single) source; the rest is unknown and ignored.
 */
export interface PoolConfigAccount {
  version: HadronProgramVersion;
  size: number;
  /** See poolStateName: only 1 (Initialized) is confirmed. */
  state: number;
  seed: string;
  authority: string;
  mint_x: string;
  mint_y: string;
  bump: number;
  curve_meta: string;
  spread_config_initialized: number;
  delta_staleness: number;
  oracle_mode: number;
  has_pool_fee: number;
  padding_hex: string;
  /** All zeros (11111111111111111111111111111111) when no transfer is pending. */
  pending_authority: string;
  nomination_expiry: string;
  token_program_x: string;
  token_program_y: string;
}

/** [S] v2 tail fields known from one third-party program only. */
export interface ConfigV2Tail {
  u64_at_422: string;
  /** The v2 curve_prefabs account address. */
  curve_prefabs_at_430: string;
}

export const CONFIG_SIZE: Readonly<Record<HadronProgramVersion, number>> = { v1: 248, v2: 724 };
const TAIL_U64 = 422;
const TAIL_PREFABS = 430;

export function decodeConfigAccount(data: Uint8Array): PoolConfigAccount {
  const version = configVersionOf(data);
  const view = viewOf(data);
  return {
    version,
    size: data.length,
    state: data[0],
    seed: readU64(view, 1),
    authority: readPubkey(data, 9),
    mint_x: readPubkey(data, 41),
    mint_y: readPubkey(data, 73),
    bump: data[105],
    curve_meta: readPubkey(data, 106),
    spread_config_initialized: data[138],
    delta_staleness: data[139],
    oracle_mode: data[140],
    has_pool_fee: data[141],
    padding_hex: readHex(data, 142, 2),
    pending_authority: readPubkey(data, 144),
    nomination_expiry: readU64(view, 176),
    token_program_x: readPubkey(data, 184),
    token_program_y: readPubkey(data, 216),
  };
}

/** The single-source v2 tail fields; null for a v1 config. */
export function decodeConfigV2Tail(data: Uint8Array): ConfigV2Tail | null {
  if (configVersionOf(data) === 'v1') return null;
  return { u64_at_422: readU64(viewOf(data), TAIL_U64), curve_prefabs_at_430: readPubkey(data, TAIL_PREFABS) };
}

/** Byte-exact account data (for the simulated cluster); unknown v2 tail bytes are zero. */
export function encodeConfigAccount(config: PoolConfigAccount, v2Tail?: ConfigV2Tail): Uint8Array {
  if (v2Tail && config.version !== 'v2') throw new RangeError('only a v2 config has a tail');
  const data = new Uint8Array(CONFIG_SIZE[config.version]);
  const view = viewOf(data);
  writeU8(data, 0, config.state);
  writeU64(view, 1, config.seed);
  writePubkey(data, 9, config.authority);
  writePubkey(data, 41, config.mint_x);
  writePubkey(data, 73, config.mint_y);
  writeU8(data, 105, config.bump);
  writePubkey(data, 106, config.curve_meta);
  writeU8(data, 138, config.spread_config_initialized);
  writeU8(data, 139, config.delta_staleness);
  writeU8(data, 140, config.oracle_mode);
  writeU8(data, 141, config.has_pool_fee);
  writeHex(data, 142, 2, config.padding_hex);
  writePubkey(data, 144, config.pending_authority);
  writeU64(view, 176, config.nomination_expiry);
  writePubkey(data, 184, config.token_program_x);
  writePubkey(data, 216, config.token_program_y);
  if (v2Tail) {
    writeU64(view, TAIL_U64, v2Tail.u64_at_422);
    writePubkey(data, TAIL_PREFABS, v2Tail.curve_prefabs_at_430);
  }
  return data;
}

function configVersionOf(data: Uint8Array): HadronProgramVersion {
  if (data.length === CONFIG_SIZE.v1) return 'v1';
  if (data.length === CONFIG_SIZE.v2) return 'v2';
  throw new HadronDecodeError('invalid_size', `a config is ${CONFIG_SIZE.v1} (v1) or ${CONFIG_SIZE.v2} (v2) bytes, got ${data.length}`);
}
