import { tryDecodeBase58 } from './base58';
import { readI64, readU64, viewOf, writeI64, writeU64, writeU8 } from './byte-io';
import { HadronDecodeError } from './decode-error';

/**
 * Hadron instruction data: u8 tag + packed little-endian args (DESIGN §2, confirmed by executing
 * v1; v2 shares the tags). u64/i64 fields are decimal strings, u8 fields numbers, exactly as the
 * golden vectors spell them.
 */

export interface SwapInstruction {
  tag: 3;
  instruction: 'Swap';
  /** Kept as sent: the program treats any non-zero value as selling X. */
  is_x: number;
  amount_in: string;
  min_out: string;
  /** Unix-timestamp deadline (i64; i64::MAX = none). */
  expiration: string;
}

export interface UpdateMidpriceInstruction {
  tag: 5;
  instruction: 'UpdateMidprice';
  sequence: string;
  midprice_q32: string;
}

export interface UpdateBaseSpreadInstruction {
  tag: 9;
  instruction: 'UpdateBaseSpread';
  sequence: string;
  spread_factor_q32: string;
}

/** The spec calls this one UpdateMidpriceAndSpreadFactor. */
export interface UpdateMidpriceAndBaseSpreadInstruction {
  tag: 10;
  instruction: 'UpdateMidpriceAndBaseSpread';
  sequence: string;
  midprice_q32: string;
  spread_factor_q32: string;
}

interface SwitchCurveFields {
  /** 0 bid, 1 ask. */
  side: number;
  slot: number;
}

export interface SwitchPriceCurveInstruction extends SwitchCurveFields {
  tag: 11;
  instruction: 'SwitchPriceCurve';
}

export interface SwitchRiskCurveInstruction extends SwitchCurveFields {
  tag: 12;
  instruction: 'SwitchRiskCurve';
}

/** A tag the program dispatches (0..24) whose layout we do not decode: Initialize, Deposit, … */
export interface OtherHadronInstruction {
  kind: 'other';
  tag: number;
}

export type DecodedHadronInstruction =
  | SwapInstruction
  | UpdateMidpriceInstruction
  | UpdateBaseSpreadInstruction
  | UpdateMidpriceAndBaseSpreadInstruction
  | SwitchPriceCurveInstruction
  | SwitchRiskCurveInstruction;

export type HadronInstruction = DecodedHadronInstruction | OtherHadronInstruction;

export const SWAP_TAG = 3;
export const UPDATE_MIDPRICE_TAG = 5;
export const UPDATE_BASE_SPREAD_TAG = 9;
export const UPDATE_MIDPRICE_AND_BASE_SPREAD_TAG = 10;
const SWITCH_PRICE_CURVE_TAG = 11;
const SWITCH_RISK_CURVE_TAG = 12;
/** v1 dispatches tags 0..24; anything above is not a Hadron instruction we know of. */
const MAX_KNOWN_TAG = 24;

const SWAP_LEN = 26;
const ORACLE_UPDATE_LEN = 17;
const ORACLE_UPDATE_BOTH_LEN = 25;
const SWITCH_CURVE_LEN = 3;

/** Throws HadronDecodeError only. */
export function decodeInstruction(data: Uint8Array): HadronInstruction {
  if (data.length === 0) throw new HadronDecodeError('empty_data', 'instruction data is empty');
  const tag = data[0];
  switch (tag) {
    case SWAP_TAG: {
      // Exactly 26 bytes [C]: the program rejects 25, 18 and 27.
      const view = exactLength(data, SWAP_LEN);
      return { tag: SWAP_TAG, instruction: 'Swap', is_x: data[1], amount_in: readU64(view, 2), min_out: readU64(view, 10), expiration: readI64(view, 18) };
    }
    // Oracle updates read a fixed prefix and ignore trailing bytes [C], as the program does.
    case UPDATE_MIDPRICE_TAG: {
      const view = atLeast(data, ORACLE_UPDATE_LEN);
      return { tag: UPDATE_MIDPRICE_TAG, instruction: 'UpdateMidprice', sequence: readU64(view, 1), midprice_q32: readU64(view, 9) };
    }
    case UPDATE_BASE_SPREAD_TAG: {
      const view = atLeast(data, ORACLE_UPDATE_LEN);
      return { tag: UPDATE_BASE_SPREAD_TAG, instruction: 'UpdateBaseSpread', sequence: readU64(view, 1), spread_factor_q32: readU64(view, 9) };
    }
    case UPDATE_MIDPRICE_AND_BASE_SPREAD_TAG: {
      const view = atLeast(data, ORACLE_UPDATE_BOTH_LEN);
      return {
        tag: UPDATE_MIDPRICE_AND_BASE_SPREAD_TAG,
        instruction: 'UpdateMidpriceAndBaseSpread',
        sequence: readU64(view, 1),
        midprice_q32: readU64(view, 9),
        spread_factor_q32: readU64(view, 17),
      };
    }
    case SWITCH_PRICE_CURVE_TAG:
    case SWITCH_RISK_CURVE_TAG: {
      // Policy, not observed on chain: exact length, side 0 or 1.
      exactLength(data, SWITCH_CURVE_LEN);
      if (data[1] > 1) throw new HadronDecodeError('invalid_side', `side must be 0 (bid) or 1 (ask), got ${data[1]}`);
      const fields = { side: data[1], slot: data[2] };
      return tag === SWITCH_PRICE_CURVE_TAG
        ? { tag: SWITCH_PRICE_CURVE_TAG, instruction: 'SwitchPriceCurve', ...fields }
        : { tag: SWITCH_RISK_CURVE_TAG, instruction: 'SwitchRiskCurve', ...fields };
    }
    default:
      if (tag > MAX_KNOWN_TAG) throw new HadronDecodeError('unknown_tag', `unknown instruction tag ${tag}`);
      return { kind: 'other', tag };
  }
}

/** Instruction data as getTransaction (json encoding) shows it. */
export function decodeInstructionBase58(data: string): HadronInstruction {
  const bytes = tryDecodeBase58(data);
  if (bytes === null) throw new HadronDecodeError('invalid_base58', 'instruction data is not base58');
  return decodeInstruction(bytes);
}

/** The exact bytes a client sends (oracle updates without trailing bytes). */
export function encodeInstruction(ix: DecodedHadronInstruction): Uint8Array {
  switch (ix.tag) {
    case SWAP_TAG: {
      const data = new Uint8Array(SWAP_LEN);
      const view = viewOf(data);
      data[0] = ix.tag;
      writeU8(data, 1, ix.is_x);
      writeU64(view, 2, ix.amount_in);
      writeU64(view, 10, ix.min_out);
      writeI64(view, 18, ix.expiration);
      return data;
    }
    case UPDATE_MIDPRICE_TAG:
      return sequenced(ix.tag, ix.sequence, ix.midprice_q32);
    case UPDATE_BASE_SPREAD_TAG:
      return sequenced(ix.tag, ix.sequence, ix.spread_factor_q32);
    case UPDATE_MIDPRICE_AND_BASE_SPREAD_TAG:
      return sequenced(ix.tag, ix.sequence, ix.midprice_q32, ix.spread_factor_q32);
    case SWITCH_PRICE_CURVE_TAG:
    case SWITCH_RISK_CURVE_TAG: {
      if (ix.side > 1) throw new RangeError(`side must be 0 or 1, got ${ix.side}`);
      const data = new Uint8Array(SWITCH_CURVE_LEN);
      data[0] = ix.tag;
      writeU8(data, 1, ix.side);
      writeU8(data, 2, ix.slot);
      return data;
    }
  }
}

function sequenced(tag: number, ...u64s: string[]): Uint8Array {
  const data = new Uint8Array(1 + 8 * u64s.length);
  const view = viewOf(data);
  data[0] = tag;
  u64s.forEach((value, i) => writeU64(view, 1 + 8 * i, value));
  return data;
}

function exactLength(data: Uint8Array, length: number): DataView {
  if (data.length > length) throw new HadronDecodeError('trailing_bytes', `tag ${data[0]} takes ${length} bytes, got ${data.length}`, length);
  return atLeast(data, length);
}

function atLeast(data: Uint8Array, length: number): DataView {
  if (data.length < length) throw new HadronDecodeError('truncated', `tag ${data[0]} needs ${length} bytes, got ${data.length}`, length);
  return viewOf(data);
}
