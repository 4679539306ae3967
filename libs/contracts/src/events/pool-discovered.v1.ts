import { z } from 'zod/v4';
import { base58, BYTE_MAX, envelopeShape, int, POOL_STATES, PPM_MAX, tokenSchema, u64String } from './envelope';

/** The Hadron program layouts a snapshot may come from. */
export const PROGRAM_VERSIONS = [1, 2] as const;

/** Snapshot of a pool's config + oracle + fee config accounts, as read at `slot`. */
export const poolSnapshotSchema = z.object({
  programId: base58,
  programVersion: z.union([z.literal(PROGRAM_VERSIONS[0]), z.literal(PROGRAM_VERSIONS[1])]),
  seed: u64String,
  authority: base58,
  quotingAuthority: base58.nullable(),
  oracle: base58,
  tokenX: tokenSchema,
  tokenY: tokenSchema,
  vaultX: base58,
  vaultY: base58,
  poolState: z.enum(POOL_STATES),
  /** The raw state byte, kept because only state 1 is confirmed on chain. */
  poolStateRaw: int().min(0).max(BYTE_MAX),
  oracleMode: int().min(0).max(BYTE_MAX),
  spreadConfigInitialized: z.boolean(),
  hasPoolFee: z.boolean(),
  feeConfig: base58.nullable(),
  feePpm: int().min(0).max(PPM_MAX).nullable(),
  feeRecipient: base58.nullable(),
  midpriceQ32: u64String.nullable(),
  spreadFactorQ32: u64String.nullable(),
});
export type PoolSnapshot = z.infer<typeof poolSnapshotSchema>;

export const poolDiscoveredV1 = z.object({ ...envelopeShape, type: z.literal('PoolDiscovered'), data: poolSnapshotSchema });
export type PoolDiscoveredV1 = z.infer<typeof poolDiscoveredV1>;

export const poolConfigChangedV1 = z.object({ ...envelopeShape, type: z.literal('PoolConfigChanged'), data: poolSnapshotSchema });
export type PoolConfigChangedV1 = z.infer<typeof poolConfigChangedV1>;
