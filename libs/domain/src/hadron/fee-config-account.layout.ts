import { readPubkey, viewOf, writePubkey, writeU32, writeU8 } from './byte-io';
import { HadronDecodeError } from './decode-error';
import type { HadronProgramVersion } from './program-ids';

/**
 * The fee config (global `["fee_config"]` or per pool `["fee_config", config]`). v1 is 72 bytes [C,
 * executed]. v2 is 686 bytes; we ASSUME it starts with the same 72-byte layout (its tail holds the
 * fee split, see fee-split.layout.ts).
 */
export interface FeeConfigAccount {
  version: HadronProgramVersion;
  size: number;
  initialized: number;
  /** Parts per million of amount_in, charged in the input mint. */
  fee_ppm: number;
  bump: number;
  admin: string;
  /** Owner of the fee ATAs (one per input mint) that swaps pay into. */
  fee_recipient: string;
}

export const FEE_CONFIG_SIZE: Readonly<Record<HadronProgramVersion, number>> = { v1: 72, v2: 686 };

export function decodeFeeConfigAccount(data: Uint8Array): FeeConfigAccount {
  return {
    version: feeConfigVersionOf(data),
    size: data.length,
    initialized: data[0],
    fee_ppm: viewOf(data).getUint32(1, true),
    bump: data[5],
    admin: readPubkey(data, 8),
    fee_recipient: readPubkey(data, 40),
  };
}

/** Byte-exact account data (for the simulated cluster); a v2 tail is zero = no split (see encodeFeeSplit). */
export function encodeFeeConfigAccount(fee: FeeConfigAccount): Uint8Array {
  const data = new Uint8Array(FEE_CONFIG_SIZE[fee.version]);
  writeU8(data, 0, fee.initialized);
  writeU32(viewOf(data), 1, fee.fee_ppm);
  writeU8(data, 5, fee.bump);
  writePubkey(data, 8, fee.admin);
  writePubkey(data, 40, fee.fee_recipient);
  return data;
}

export function feeConfigVersionOf(data: Uint8Array): HadronProgramVersion {
  if (data.length === FEE_CONFIG_SIZE.v1) return 'v1';
  if (data.length === FEE_CONFIG_SIZE.v2) return 'v2';
  throw new HadronDecodeError('invalid_size', `a fee config is ${FEE_CONFIG_SIZE.v1} (v1) or ${FEE_CONFIG_SIZE.v2} (v2) bytes, got ${data.length}`);
}
