import {
  BASE58_KEY_RE,
  BASE58_SIGNATURE_RE,
  BYTE_MAX,
  CLUSTERS,
  CONTRACT_VERSION,
  DECIMALS_MAX,
  DECODER_VERSION_MAX_LENGTH,
  fitsU64,
  ICON_MAX_LENGTH,
  ID_MAX_LENGTH,
  NAME_MAX_LENGTH,
  POOL_STATES,
  PPM_MAX,
  SYMBOL_MAX_LENGTH,
  U64_DECIMAL_RE,
  type FeeSplitRecipient,
  type TokenMetadata,
} from './envelope';
import type { FeeSplitChangedV1 } from './fee-split-changed.v1';
import type { EventOf, HadronEvent, HadronEventType } from './hadron-event.schema';
import { MIDPRICE_INSTRUCTIONS, type MidpriceUpdatedV1 } from './midprice-updated.v1';
import { PROGRAM_VERSIONS, type PoolSnapshot } from './pool-discovered.v1';
import { SWAP_SIDES, type SwapExecutedV1 } from './swap-executed.v1';
import type { VaultBalancesChangedV1 } from './vault-balances-changed.v1';

/**
 * The v1 contracts as straight-line checks, for parseHadronEvent's hot path (the projector
 * validates every event it replays; zod costs about twice JSON.parse per event, this a fraction).
 * It accepts exactly what hadronEventSchema accepts and returns what zod returns: fresh objects
 * with the schema's keys in the schema's order, unknown keys stripped, nothing transformed, an
 * absent optional key absent. On anything else it returns undefined and the caller asks zod,
 * which also words the reason; hadron-event.fast-path.spec.ts checks both directions against
 * zod on generated and mutated events. Bounds, patterns and enums come from the schema files.
 *
 * Each field is read once into a local and narrowed by a type guard before the output literal is
 * built, so a field without a check does not compile. A key's value is read the way zod reads it
 * (`value[key]`, inherited keys included).
 */

type Fields = Record<string, unknown>;

const isFields = (v: unknown): v is Fields => typeof v === 'object' && v !== null && !Array.isArray(v);
/** zod's int() here: any finite integer (Number.isInteger is false for non-numbers, NaN, ±Infinity). */
const isInt = (v: unknown): v is number => Number.isInteger(v);
const isNat = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;
const isIntUpTo = (v: unknown, max: number): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= max;
const isText = (v: unknown, min: number, max: number): v is string => typeof v === 'string' && v.length >= min && v.length <= max;
const isKey = (v: unknown): v is string => typeof v === 'string' && BASE58_KEY_RE.test(v);
const isSignature = (v: unknown): v is string => typeof v === 'string' && BASE58_SIGNATURE_RE.test(v);
const isU64 = (v: unknown): v is string => typeof v === 'string' && U64_DECIMAL_RE.test(v) && fitsU64(v);
/** Membership as z.enum / z.literal test it (SameValueZero, like their Set). */
const isOneOf = <T>(values: readonly T[], v: unknown): v is T => values.includes(v as T);

function token(v: unknown): TokenMetadata | undefined {
  if (!isFields(v)) return undefined;
  const { mint, symbol, name, decimals, icon } = v;
  if (!(
    isKey(mint) &&
    isText(symbol, 0, SYMBOL_MAX_LENGTH) &&
    isText(name, 0, NAME_MAX_LENGTH) &&
    isIntUpTo(decimals, DECIMALS_MAX) &&
    isText(icon, 0, ICON_MAX_LENGTH)
  ))
    return undefined;
  return { mint, symbol, name, decimals, icon };
}

/** A list of fee split recipients; a fresh array, as zod returns. */
function recipients(v: unknown): FeeSplitRecipient[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: FeeSplitRecipient[] = [];
  for (let i = 0; i < v.length; i++) {
    const r: unknown = v[i];
    if (!isFields(r)) return undefined;
    const { recipient, ppm } = r;
    if (!(isKey(recipient) && isIntUpTo(ppm, PPM_MAX))) return undefined;
    out.push({ recipient, ppm });
  }
  return out;
}

function poolSnapshot(v: unknown): PoolSnapshot | undefined {
  if (!isFields(v)) return undefined;
  const {
    programId,
    programVersion,
    seed,
    authority,
    quotingAuthority,
    oracle,
    vaultX,
    vaultY,
    poolState,
    poolStateRaw,
    oracleMode,
    spreadConfigInitialized,
    hasPoolFee,
    feeConfig,
    feePpm,
    feeRecipient,
    midpriceQ32,
    spreadFactorQ32,
  } = v;
  const tokenX = token(v.tokenX);
  const tokenY = token(v.tokenY);
  if (!(
    isKey(programId) &&
    isOneOf(PROGRAM_VERSIONS, programVersion) &&
    isU64(seed) &&
    isKey(authority) &&
    (quotingAuthority === null || isKey(quotingAuthority)) &&
    isKey(oracle) &&
    tokenX !== undefined &&
    tokenY !== undefined &&
    isKey(vaultX) &&
    isKey(vaultY) &&
    isOneOf(POOL_STATES, poolState) &&
    isIntUpTo(poolStateRaw, BYTE_MAX) &&
    isIntUpTo(oracleMode, BYTE_MAX) &&
    typeof spreadConfigInitialized === 'boolean' &&
    typeof hasPoolFee === 'boolean' &&
    (feeConfig === null || isKey(feeConfig)) &&
    (feePpm === null || isIntUpTo(feePpm, PPM_MAX)) &&
    (feeRecipient === null || isKey(feeRecipient)) &&
    (midpriceQ32 === null || isU64(midpriceQ32)) &&
    (spreadFactorQ32 === null || isU64(spreadFactorQ32))
  ))
    return undefined;
  return {
    programId,
    programVersion,
    seed,
    authority,
    quotingAuthority,
    oracle,
    tokenX,
    tokenY,
    vaultX,
    vaultY,
    poolState,
    poolStateRaw,
    oracleMode,
    spreadConfigInitialized,
    hasPoolFee,
    feeConfig,
    feePpm,
    feeRecipient,
    midpriceQ32,
    spreadFactorQ32,
  };
}

function midpriceData(v: unknown): MidpriceUpdatedV1['data'] | undefined {
  if (!isFields(v)) return undefined;
  const { instruction, oracle, quotingAuthority, sequence, midpriceQ32, spreadFactorQ32, midpriceAfterQ32, spreadFactorAfterQ32 } = v;
  if (!(
    isOneOf(MIDPRICE_INSTRUCTIONS, instruction) &&
    isKey(oracle) &&
    isKey(quotingAuthority) &&
    isU64(sequence) &&
    (midpriceQ32 === null || isU64(midpriceQ32)) &&
    (spreadFactorQ32 === null || isU64(spreadFactorQ32)) &&
    (midpriceAfterQ32 === undefined || midpriceAfterQ32 === null || isU64(midpriceAfterQ32)) &&
    (spreadFactorAfterQ32 === undefined || spreadFactorAfterQ32 === null || isU64(spreadFactorAfterQ32))
  ))
    return undefined;
  const data: MidpriceUpdatedV1['data'] = { instruction, oracle, quotingAuthority, sequence, midpriceQ32, spreadFactorQ32 };
  // zod's optional keys: an undefined value is kept as a key only when the input has the key.
  if (midpriceAfterQ32 !== undefined || 'midpriceAfterQ32' in v) data.midpriceAfterQ32 = midpriceAfterQ32;
  if (spreadFactorAfterQ32 !== undefined || 'spreadFactorAfterQ32' in v) data.spreadFactorAfterQ32 = spreadFactorAfterQ32;
  return data;
}

function swapData(v: unknown): SwapExecutedV1['data'] | undefined {
  if (!isFields(v)) return undefined;
  const {
    side,
    trader,
    inputMint,
    outputMint,
    amountIn,
    amountInToVault,
    amountOut,
    feeRaw,
    feeMint,
    feeRecipientAta,
    decimalsX,
    decimalsY,
    midpriceQ32,
    spreadFactorQ32,
    vaultXAfter,
    vaultYAfter,
  } = v;
  const split = v.feeSplit;
  const feeSplit = split === null ? null : recipients(split);
  if (!(
    isOneOf(SWAP_SIDES, side) &&
    isKey(trader) &&
    isKey(inputMint) &&
    isKey(outputMint) &&
    isU64(amountIn) &&
    isU64(amountInToVault) &&
    isU64(amountOut) &&
    isU64(feeRaw) &&
    isKey(feeMint) &&
    isKey(feeRecipientAta) &&
    isIntUpTo(decimalsX, DECIMALS_MAX) &&
    isIntUpTo(decimalsY, DECIMALS_MAX) &&
    (midpriceQ32 === null || isU64(midpriceQ32)) &&
    (spreadFactorQ32 === null || isU64(spreadFactorQ32)) &&
    isU64(vaultXAfter) &&
    isU64(vaultYAfter) &&
    feeSplit !== undefined
  ))
    return undefined;
  return {
    side,
    trader,
    inputMint,
    outputMint,
    amountIn,
    amountInToVault,
    amountOut,
    feeRaw,
    feeMint,
    feeRecipientAta,
    decimalsX,
    decimalsY,
    midpriceQ32,
    spreadFactorQ32,
    vaultXAfter,
    vaultYAfter,
    feeSplit,
  };
}

function vaultBalancesData(v: unknown): VaultBalancesChangedV1['data'] | undefined {
  if (!isFields(v)) return undefined;
  const { vaultX, vaultY, amountX, amountY } = v;
  if (!(isKey(vaultX) && isKey(vaultY) && isU64(amountX) && isU64(amountY))) return undefined;
  return { vaultX, vaultY, amountX, amountY };
}

function feeSplitData(v: unknown): FeeSplitChangedV1['data'] | undefined {
  if (!isFields(v)) return undefined;
  const feeConfig = v.feeConfig;
  const feePpm = v.feePpm;
  const list = recipients(v.recipients);
  if (!(isKey(feeConfig) && isIntUpTo(feePpm, PPM_MAX) && list !== undefined)) return undefined;
  return { feeConfig, feePpm, recipients: list };
}

/** The envelope checked and copied in schema order, then `type` and the already checked `data`. */
function withEnvelope<T extends HadronEventType, D>(e: Fields, type: T, data: D | undefined) {
  if (data === undefined) return undefined;
  const { id, version, cluster, pool, slot, blockTime, signature, txIndex, ixIndex, innerIndex, decoderVersion } = e;
  if (!(
    isText(id, 1, ID_MAX_LENGTH) &&
    version === CONTRACT_VERSION &&
    isOneOf(CLUSTERS, cluster) &&
    isKey(pool) &&
    isNat(slot) &&
    (blockTime === null || isInt(blockTime)) &&
    (signature === null || isSignature(signature)) &&
    (txIndex === null || isNat(txIndex)) &&
    (ixIndex === null || isNat(ixIndex)) &&
    (innerIndex === null || isNat(innerIndex)) &&
    isText(decoderVersion, 1, DECODER_VERSION_MAX_LENGTH)
  ))
    return undefined;
  return { id, version: CONTRACT_VERSION, cluster, pool, slot, blockTime, signature, txIndex, ixIndex, innerIndex, decoderVersion, type, data };
}

// `data` is checked before the envelope: every rule must hold, so the order changes no verdict.
const byType = {
  PoolDiscovered: (e) => withEnvelope(e, 'PoolDiscovered', poolSnapshot(e.data)),
  PoolConfigChanged: (e) => withEnvelope(e, 'PoolConfigChanged', poolSnapshot(e.data)),
  MidpriceUpdated: (e) => withEnvelope(e, 'MidpriceUpdated', midpriceData(e.data)),
  SwapExecuted: (e) => withEnvelope(e, 'SwapExecuted', swapData(e.data)),
  VaultBalancesChanged: (e) => withEnvelope(e, 'VaultBalancesChanged', vaultBalancesData(e.data)),
  FeeSplitChanged: (e) => withEnvelope(e, 'FeeSplitChanged', feeSplitData(e.data)),
  TokenMetadataChanged: (e) => withEnvelope(e, 'TokenMetadataChanged', token(e.data)),
} satisfies { [T in HadronEventType]: (e: Fields) => EventOf<T> | undefined };

/** A Map, not the object: `type` is untrusted (`toString`, `__proto__` must find nothing). */
const checks = new Map<unknown, (e: Fields) => HadronEvent | undefined>(Object.entries(byType));

/**
 * The event in `value` as hadronEventSchema.safeParse would return it, or undefined when zod
 * would refuse it (the caller then asks zod for the reason).
 */
export function fastParseHadronEvent(value: unknown): HadronEvent | undefined {
  if (!isFields(value)) return undefined;
  const check = checks.get(value.type);
  return check === undefined ? undefined : check(value);
}
