import { decodePubkey, encodeBase58 } from './base58';

/** Little-endian field access shared by the account and instruction layouts (all Hadron integers are LE). */

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

export function viewOf(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

export const readU64 = (view: DataView, offset: number): string => view.getBigUint64(offset, true).toString();
export const readI64 = (view: DataView, offset: number): string => view.getBigInt64(offset, true).toString();
export const readPubkey = (data: Uint8Array, offset: number): string => encodeBase58(data.subarray(offset, offset + 32));

export function readHex(data: Uint8Array, offset: number, length: number): string {
  let hex = '';
  for (let i = offset; i < offset + length; i++) hex += data[i].toString(16).padStart(2, '0');
  return hex;
}

/** Writers validate their input: DataView would silently wrap an out-of-range bigint. */
export function writeU64(view: DataView, offset: number, value: string | bigint): void {
  view.setBigUint64(offset, inRange(value, 0n, U64_MAX, 'u64'), true);
}

export function writeI64(view: DataView, offset: number, value: string | bigint): void {
  view.setBigInt64(offset, inRange(value, I64_MIN, I64_MAX, 'i64'), true);
}

export function writeU8(data: Uint8Array, offset: number, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xff) throw new RangeError(`not a u8: ${value}`);
  data[offset] = value;
}

export function writeU32(view: DataView, offset: number, value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > 0xffff_ffff) throw new RangeError(`not a u32: ${value}`);
  view.setUint32(offset, value, true);
}

export function writePubkey(data: Uint8Array, offset: number, base58: string): void {
  data.set(decodePubkey(base58), offset);
}

export function writeHex(data: Uint8Array, offset: number, length: number, hex: string): void {
  if (!new RegExp(`^[0-9a-fA-F]{${2 * length}}$`).test(hex)) throw new RangeError(`not ${length} bytes of hex: ${hex}`);
  for (let i = 0; i < length; i++) data[offset + i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
}

function inRange(value: string | bigint, min: bigint, max: bigint, type: string): bigint {
  if (typeof value === 'string' && !/^-?[0-9]+$/.test(value)) throw new RangeError(`not a ${type}: ${JSON.stringify(value)}`);
  const n = BigInt(value);
  if (n < min || n > max) throw new RangeError(`not a ${type}: ${value}`);
  return n;
}
