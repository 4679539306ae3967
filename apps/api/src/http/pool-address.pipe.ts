import type { PipeTransform } from '@nestjs/common';
import bs58 from 'bs58';
import { invalidParameter } from './api-exception.filter';

export const ADDRESS_MESSAGE = 'address must be a base58-encoded 32-byte Solana address';

/**
 * The `{address}` path segment: base58 of exactly 32 bytes (32 to 44 characters), or 400 before
 * any query. Anything else (a NUL byte, non-base58 characters, a prefix) can name no pool.
 */
export class PoolAddressPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (!isPoolAddress(value)) throw invalidParameter('address', ADDRESS_MESSAGE);
    return value;
  }
}

/** Base58 of exactly 32 bytes (32 to 44 characters). */
export function isPoolAddress(value: unknown): value is string {
  if (typeof value !== 'string' || value.length < 32 || value.length > 44) return false;
  const bytes = bs58.decodeUnsafe(value);
  return bytes !== undefined && bytes.length === 32;
}
