import { z } from 'zod/v4';
import { envelopeShape, tokenSchema } from './envelope';

/**
 * What the chain now says a token of the pool is called: its metadata (name, symbol, or the
 * curated icon) differs from what the pool's last event carried — an update authority renamed
 * it, or an earlier release read it wrong. One event per pool holding the mint (the log is keyed
 * by pool). `decimals` is the mint's, unchanged: a mint's decimals never change.
 */
export const tokenMetadataChangedV1 = z.object({ ...envelopeShape, type: z.literal('TokenMetadataChanged'), data: tokenSchema });
export type TokenMetadataChangedV1 = z.infer<typeof tokenMetadataChangedV1>;
