import { readPubkey, readU64, viewOf, writePubkey, writeU64 } from './byte-io';
import { HadronDecodeError } from './decode-error';
import type { HadronProgramVersion } from './program-ids';

/** The midprice oracle [C]: v1 is 64 bytes; v2 is 128 with the same first 64 (the rest is unknown). */
export interface OracleAccount {
  version: HadronProgramVersion;
  size: number;
  quoting_authority: string;
  sequence: string;
  /** Quote atoms per base atom × 2^32. */
  midprice_q32: string;
  /** Multiplier × 2^32; base_spread_bps = (1 − factor) × 10000. */
  spread_factor_q32: string;
  last_update_slot: string;
}

export const ORACLE_SIZE: Readonly<Record<HadronProgramVersion, number>> = { v1: 64, v2: 128 };

export function decodeOracleAccount(data: Uint8Array): OracleAccount {
  const view = viewOf(data);
  return {
    version: oracleVersionOf(data),
    size: data.length,
    quoting_authority: readPubkey(data, 0),
    sequence: readU64(view, 32),
    midprice_q32: readU64(view, 40),
    spread_factor_q32: readU64(view, 48),
    last_update_slot: readU64(view, 56),
  };
}

/** Byte-exact account data (for the simulated cluster); unknown v2 tail bytes are zero. */
export function encodeOracleAccount(oracle: OracleAccount): Uint8Array {
  const data = new Uint8Array(ORACLE_SIZE[oracle.version]);
  const view = viewOf(data);
  writePubkey(data, 0, oracle.quoting_authority);
  writeU64(view, 32, oracle.sequence);
  writeU64(view, 40, oracle.midprice_q32);
  writeU64(view, 48, oracle.spread_factor_q32);
  writeU64(view, 56, oracle.last_update_slot);
  return data;
}

function oracleVersionOf(data: Uint8Array): HadronProgramVersion {
  if (data.length === ORACLE_SIZE.v1) return 'v1';
  if (data.length === ORACLE_SIZE.v2) return 'v2';
  throw new HadronDecodeError('invalid_size', `an oracle is ${ORACLE_SIZE.v1} (v1) or ${ORACLE_SIZE.v2} (v2) bytes, got ${data.length}`);
}
