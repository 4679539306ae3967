import { tryDecodeBase58 } from '@hadron/domain';
import type { Commitment, Ledger } from '../ledger/ledger';
import { invalidParam, invalidParams, minContextSlotNotReached } from './rpc-errors';

/** Positional params and the config object of the RPC methods, checked as the RPC checks them. */

const MAX_FILTERS = 4;

export type Config = Record<string, unknown>;

export function configParam(value: unknown): Config {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams('expected a configuration object');
  return value as Config;
}

export function pubkeyParam(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('expected a base58 public key string');
  const bytes = tryDecodeBase58(value);
  if (bytes === null) throw invalidParam('Invalid');
  if (bytes.length !== 32) throw invalidParam('WrongSize');
  return value;
}

export function signatureParam(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('expected a base58 signature string');
  const bytes = tryDecodeBase58(value);
  if (bytes === null || bytes.length !== 64) throw invalidParam('Invalid');
  return value;
}

export function optionalSignature(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : signatureParam(value);
}

export function slotParam(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidParams('expected a slot (u64)');
  return value;
}

export function commitmentParam(value: unknown): Commitment {
  if (value === undefined || value === null) return 'finalized';
  // Deprecated aliases still accepted by the RPC.
  const aliases: Record<string, Commitment> = {
    processed: 'processed',
    confirmed: 'confirmed',
    finalized: 'finalized',
    recent: 'processed',
    single: 'confirmed',
    singleGossip: 'confirmed',
    root: 'finalized',
    max: 'finalized',
  };
  if (typeof value !== 'string' || !(value in aliases)) throw invalidParams(`unknown commitment: ${String(value)}`);
  return aliases[value];
}

export function atLeastConfirmed(config: Config): Commitment {
  const commitment = commitmentParam(config.commitment);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

export function contextSlot(ledger: Ledger, config: Config): number {
  const slot = ledger.visibleSlot(commitmentParam(config.commitment));
  checkMinContextSlot(slot, config);
  return slot;
}

export function checkMinContextSlot(slot: number, config: Config): void {
  const min = config.minContextSlot;
  if (min === undefined || min === null) return;
  if (typeof min !== 'number' || !Number.isInteger(min)) throw invalidParams('minContextSlot must be a slot');
  if (min > slot) throw minContextSlotNotReached(slot);
}

export function encodingParam(value: unknown, allowed: readonly string[], fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value))
    throw invalidParams(`unsupported encoding: ${String(value)}; expected one of ${allowed.join(', ')}`);
  return value;
}

export function maxVersionParam(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (value !== 0) throw invalidParams(`unsupported maxSupportedTransactionVersion: ${String(value)}`);
  return 0;
}

export type Filter = (data: Uint8Array) => boolean;

export function filtersParam(value: unknown): Filter[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidParams('filters must be an array');
  if (value.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`);
  return value.map((f: unknown): Filter => {
    if (typeof f !== 'object' || f === null) throw invalidParams('invalid filter');
    const filter = f as { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } };
    if ('dataSize' in filter) {
      const size = filter.dataSize;
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidParams('dataSize must be a non-negative integer');
      return (data) => data.length === size;
    }
    if ('memcmp' in filter && typeof filter.memcmp === 'object' && filter.memcmp !== null) {
      const { offset, bytes, encoding } = filter.memcmp;
      if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) throw invalidParams('memcmp.offset must be a non-negative integer');
      if (typeof bytes !== 'string') throw invalidParams('memcmp.bytes must be a string');
      let wanted: Uint8Array | null;
      if (encoding === undefined || encoding === null || encoding === 'base58') {
        if (bytes.length > 175) throw invalidParams('memcmp.bytes: base58 data too large');
        wanted = tryDecodeBase58(bytes);
      } else if (encoding === 'base64') {
        wanted = /^[A-Za-z0-9+/]*={0,2}$/.test(bytes) ? new Uint8Array(Buffer.from(bytes, 'base64')) : null;
      } else {
        throw invalidParams(`unsupported memcmp encoding: ${String(encoding)}`);
      }
      if (wanted === null) throw invalidParams('memcmp.bytes is not valid for its encoding');
      if (wanted.length > 128) throw invalidParams('memcmp.bytes: data too large; max 128 bytes');
      const w = wanted;
      return (data) => {
        if (offset + w.length > data.length) return false;
        for (let i = 0; i < w.length; i++) if (data[offset + i] !== w[i]) return false;
        return true;
      };
    }
    throw invalidParams('filter must be {dataSize} or {memcmp: {offset, bytes}}');
  });
}
