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

/** Whether digits that match U64_DECIMAL_RE are at most 2^64 − 1 (no leading zeros: length, then text order). */
export const fitsU64 = (digits: string): boolean => digits.length < 20 || (digits.length === 20 && digits <= U64_MAX_TEXT);

/**
 * The contracts' bounds, named once: the schemas here and in *.v1.ts use them, and so does the
 * hand-written fast path of parseHadronEvent (hadron-event.fast-path.ts).
 */
export const CONTRACT_VERSION = 1 as const;
export const ID_MAX_LENGTH = 200;
export const DECODER_VERSION_MAX_LENGTH = 32;
export const SYMBOL_MAX_LENGTH = 64;
export const NAME_MAX_LENGTH = 128;
export const ICON_MAX_LENGTH = 2048;
export const DECIMALS_MAX = 30;
export const PPM_MAX = 1_000_000;
export const BYTE_MAX = 255;

/** u64 as a decimal string: JS numbers lose precision above 2^53. */
export const u64String = z
  .string()
  .regex(U64_DECIMAL_RE, 'must be a decimal u64 string')
  // zod runs refinements after a failed regex too: only judge the size of well-formed digits.
  .refine((s) => !U64_DECIMAL_RE.test(s) || fitsU64(s), 'exceeds u64');

/** Base58 public key or signature text (not checked on-curve; that is the decoder's job). */
export const base58 = z.string().regex(BASE58_KEY_RE, 'must be a base58 public key');
export const signature = z.string().regex(BASE58_SIGNATURE_RE, 'must be a base58 signature');

export const envelopeShape = {
  /** Deterministic: `signature:ixIndex[:innerIndex]` for instruction facts, `account:slot` for account state. */
  id: z.string().min(1).max(ID_MAX_LENGTH),
  version: z.literal(CONTRACT_VERSION),
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
  decoderVersion: z.string().min(1).max(DECODER_VERSION_MAX_LENGTH),
};

export const tokenSchema = z.object({
  mint: base58,
  symbol: z.string().max(SYMBOL_MAX_LENGTH),
  name: z.string().max(NAME_MAX_LENGTH),
  decimals: int().min(0).max(DECIMALS_MAX),
  icon: z.string().max(ICON_MAX_LENGTH),
});
export type TokenMetadata = z.infer<typeof tokenSchema>;

export const POOL_STATES = ['Uninitialized', 'Initialized', 'Paused', 'RejectSwaps', 'Closed'] as const;
export type PoolStateName = (typeof POOL_STATES)[number];

export const feeSplitRecipientSchema = z.object({ recipient: base58, ppm: int().min(0).max(PPM_MAX) });
export type FeeSplitRecipient = z.infer<typeof feeSplitRecipientSchema>;
