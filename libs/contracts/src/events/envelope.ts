import { z } from 'zod/v4';

/** Clusters we index. The API's `cluster` parameter takes exactly these. */
export const CLUSTERS = ['mainnet-beta', 'devnet'] as const;
export type Cluster = (typeof CLUSTERS)[number];

/**
 * Any JS integer (zod 3's `.int()`, which these contracts were written with): zod 4's `.int()`
 * also refuses |n| > 2^53 − 1, and a slot or block time there is odd but was never refused.
 */
export const int = () => z.number().refine(Number.isInteger, 'expected an integer');

const U64_MAX = (1n << 64n) - 1n;
export const U64_MAX_TEXT = U64_MAX.toString();
export const U64_DECIMAL_RE = /^(0|[1-9][0-9]*)$/;
export const BASE58_KEY_RE = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
export const BASE58_SIGNATURE_RE = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;

/** u64 as a decimal string: JS numbers lose precision above 2^53. */
export const u64String = z
  .string()
  .regex(U64_DECIMAL_RE, 'must be a decimal u64 string')
  // zod runs refinements after a failed regex too: only judge the size of well-formed digits.
  .refine((s) => !U64_DECIMAL_RE.test(s) || s.length < 20 || (s.length === 20 && s <= U64_MAX_TEXT), 'exceeds u64');

/** Base58 public key or signature text (not checked on-curve; that is the decoder's job). */
export const base58 = z.string().regex(BASE58_KEY_RE, 'must be a base58 public key');
export const signature = z.string().regex(BASE58_SIGNATURE_RE, 'must be a base58 signature');

export const envelopeShape = {
  /** Deterministic: `signature:ixIndex[:innerIndex]` for instruction facts, `account:slot` for account state. */
  id: z.string().min(1).max(200),
  version: z.literal(1),
  cluster: z.enum(CLUSTERS),
  /** Pool config address; the log key, so all facts of one pool stay in order. */
  pool: base58,
  slot: int().nonnegative(),
  /** Unix seconds; null only when the RPC had no block time. */
  blockTime: int().nullable(),
  signature: signature.nullable(),
  /** Position of the transaction in its block, when known. */
  txIndex: int().nonnegative().nullable(),
  /** Top-level instruction index and inner index inside the tx (null for account-state facts). */
  ixIndex: int().nonnegative().nullable(),
  innerIndex: int().nonnegative().nullable(),
  decoderVersion: z.string().min(1).max(32),
};

export const tokenSchema = z.object({
  mint: base58,
  symbol: z.string().max(64),
  name: z.string().max(128),
  decimals: int().min(0).max(30),
  icon: z.string().max(2048),
});
export type TokenMetadata = z.infer<typeof tokenSchema>;

export const POOL_STATES = ['Uninitialized', 'Initialized', 'Paused', 'RejectSwaps', 'Closed'] as const;
export type PoolStateName = (typeof POOL_STATES)[number];

export const feeSplitRecipientSchema = z.object({ recipient: base58, ppm: int().min(0).max(1_000_000) });
export type FeeSplitRecipient = z.infer<typeof feeSplitRecipientSchema>;
