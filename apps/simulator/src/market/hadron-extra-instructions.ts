import { decodePubkey } from '@hadron/domain';

/**
 * Hadron instructions the simulator sends that @hadron/domain does not encode (it decodes only
 * the tags the indexer turns into events). Layouts of tags 1 and 2 are confirmed (DESIGN §2);
 * the two admin tags below are SIMULATOR ASSUMPTIONS: the real instructions that change a pool's
 * state or a fee config's split are not known, so the indexer must learn those changes from the
 * accounts (config byte 0, the fee config's split), never from these instructions.
 */

export const DEPOSIT_TAG = 1;
export const WITHDRAW_TAG = 2;
/** [A] Sets config byte 0 (pool state). Data: tag u8, state u8. */
export const SIM_SET_POOL_STATE_TAG = 16;
/** [A] Rewrites a fee config (fee rate and split). Data: tag u8, fee_ppm u32. */
export const SIM_UPDATE_FEE_CONFIG_TAG = 7;

/** Program error codes the simulator uses for failed transactions. */
export const HADRON_ERRORS = {
  /** Custom 8 = SlippageExceeded (fixtures/hadron c_v1_failed_swap_slippage). */
  slippageExceeded: 8,
  /** [A] a swap on a pool that is not Initialized. */
  poolNotActive: 3,
  /** [A] an oracle update with a lower sequence. */
  staleSequence: 17,
} as const;

export const INITIALIZE_TAG = 0;

/**
 * Initialize (0) [C layout]: `seed u64, mint_x, mint_y, authority, initial_midprice_q32 u64,
 * oracle_mode u8, max_prefab_slots u8, max_curve_points u8`.
 */
export function initializeData(args: {
  seed: bigint;
  mintX: string;
  mintY: string;
  authority: string;
  initialMidpriceQ32: bigint;
  oracleMode: number;
  maxPrefabSlots: number;
  maxCurvePoints: number;
}): Uint8Array {
  const data = new Uint8Array(1 + 8 + 32 * 3 + 8 + 3);
  const view = new DataView(data.buffer);
  data[0] = INITIALIZE_TAG;
  view.setBigUint64(1, args.seed, true);
  data.set(decodePubkey(args.mintX), 9);
  data.set(decodePubkey(args.mintY), 41);
  data.set(decodePubkey(args.authority), 73);
  view.setBigUint64(105, args.initialMidpriceQ32, true);
  data[113] = args.oracleMode;
  data[114] = args.maxPrefabSlots;
  data[115] = args.maxCurvePoints;
  return data;
}

/** Deposit (1) / Withdraw (2): `amount_x u64, amount_y u64, expiration i64` [C]. */
export function liquidityData(tag: typeof DEPOSIT_TAG | typeof WITHDRAW_TAG, amountX: bigint, amountY: bigint, expiration: bigint): Uint8Array {
  const data = new Uint8Array(25);
  const view = new DataView(data.buffer);
  data[0] = tag;
  view.setBigUint64(1, amountX, true);
  view.setBigUint64(9, amountY, true);
  view.setBigInt64(17, expiration, true);
  return data;
}

export function setPoolStateData(state: number): Uint8Array {
  return Uint8Array.of(SIM_SET_POOL_STATE_TAG, state);
}

export function updateFeeConfigData(feePpm: number): Uint8Array {
  const data = new Uint8Array(5);
  data[0] = SIM_UPDATE_FEE_CONFIG_TAG;
  new DataView(data.buffer).setUint32(1, feePpm, true);
  return data;
}
