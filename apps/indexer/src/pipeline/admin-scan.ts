import {
  encodeBase58,
  HADRON_PROGRAM_V1,
  HADRON_PROGRAM_V2,
  poolAccountAddress,
  SWAP_TAG,
  tryDecodeBase58,
  UPDATE_BASE_SPREAD_TAG,
  UPDATE_MIDPRICE_AND_BASE_SPREAD_TAG,
  UPDATE_MIDPRICE_TAG,
} from '@hadron/domain';
import type { RpcCompiledInstruction } from '../decode';
import type { WireTransaction } from '../source/solana-rpc';

/**
 * What a transaction may have changed in pool ACCOUNT STATE (config, oracle authority, fee config),
 * which no instruction we decode spells out: swaps write no Hadron account and oracle updates are
 * decoded exactly, but any other Hadron instruction (deposit, withdraw, pause, fee-config admin,
 * Initialize, unknown tags) may write the accounts it names writable. Such a transaction is a
 * "potential write": the indexer re-reads the accounts and attributes what changed to it. Pure.
 */

const INITIALIZE_TAG = 0;
const SWITCH_PRICE_CURVE_TAG = 11;
const SWITCH_RISK_CURVE_TAG = 12;
/** Tags whose effect on our accounts is fully known: none (swap, curve switches) or decoded (oracle updates). */
const NO_ACCOUNT_STATE_CHANGE = new Set([
  SWAP_TAG,
  UPDATE_MIDPRICE_TAG,
  UPDATE_BASE_SPREAD_TAG,
  UPDATE_MIDPRICE_AND_BASE_SPREAD_TAG,
  SWITCH_PRICE_CURVE_TAG,
  SWITCH_RISK_CURVE_TAG,
]);

/** Initialize [C layout]: tag 0, seed u64, mint_x, mint_y, authority, initial_midprice_q32 u64, … */
export interface InitializeArgs {
  programId: string;
  /** The config PDA the args derive. */
  config: string;
  initialMidpriceQ32: string;
}

export interface AdminScan {
  /** Accounts a non-swap, non-oracle-update Hadron instruction names as writable. */
  written: Set<string>;
  /** Every account any Hadron instruction names (first appearance of a new pool). */
  named: Set<string>;
  initializes: InitializeArgs[];
}

export function scanTransaction(tx: WireTransaction): AdminScan {
  const scan: AdminScan = { written: new Set(), named: new Set(), initializes: [] };
  const meta = tx.meta;
  if (!meta || (meta.err !== null && meta.err !== undefined)) return scan;
  const message = tx.transaction.message;
  const loaded = meta.loadedAddresses;
  const keys = loaded ? [...message.accountKeys, ...loaded.writable, ...loaded.readonly] : message.accountKeys;
  const v1 = keys.indexOf(HADRON_PROGRAM_V1);
  const v2 = keys.indexOf(HADRON_PROGRAM_V2);
  if (v1 < 0 && v2 < 0) return scan;
  const writable = writableIndexes(tx, keys.length);
  const visit = (ix: RpcCompiledInstruction) => {
    if (ix.programIdIndex !== v1 && ix.programIdIndex !== v2) return;
    for (const a of ix.accounts) if (a >= 0 && a < keys.length) scan.named.add(keys[a]);
    const data = tryDecodeBase58(ix.data);
    const tag = data && data.length > 0 ? data[0] : -1;
    if (NO_ACCOUNT_STATE_CHANGE.has(tag)) return;
    for (const a of ix.accounts) if (a >= 0 && a < keys.length && (writable === null || writable.has(a))) scan.written.add(keys[a]);
    if (tag === INITIALIZE_TAG && data) {
      const init = initializeArgs(keys[ix.programIdIndex], data);
      if (init) scan.initializes.push(init);
    }
  };
  message.instructions.forEach((ix, i) => {
    visit(ix);
    for (const group of meta.innerInstructions ?? []) if (group.index === i) group.instructions.forEach(visit);
  });
  return scan;
}

/** Writable key indexes from the message header (+ loaded writable addresses); null when the header is absent. */
function writableIndexes(tx: WireTransaction, keyCount: number): Set<number> | null {
  const header = tx.transaction.message.header;
  if (!header) return null;
  const staticCount = tx.transaction.message.accountKeys.length;
  const out = new Set<number>();
  const signedWritable = header.numRequiredSignatures - header.numReadonlySignedAccounts;
  for (let i = 0; i < signedWritable; i++) out.add(i);
  for (let i = header.numRequiredSignatures; i < staticCount - header.numReadonlyUnsignedAccounts; i++) out.add(i);
  const loadedWritable = tx.meta?.loadedAddresses?.writable.length ?? 0;
  for (let i = staticCount; i < Math.min(keyCount, staticCount + loadedWritable); i++) out.add(i);
  return out;
}

const INITIALIZE_MIN_LEN = 1 + 8 + 32 * 3 + 8;

function initializeArgs(programId: string, data: Uint8Array): InitializeArgs | null {
  if (data.length < INITIALIZE_MIN_LEN) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const seed = view.getBigUint64(1, true);
  const mintX = data.subarray(9, 41);
  const mintY = data.subarray(41, 73);
  const midprice = view.getBigUint64(105, true);
  const config = poolAccountAddress('config', programId, seed, encodeBase58(mintX), encodeBase58(mintY)).address;
  return { programId, config, initialMidpriceQ32: midprice.toString() };
}
