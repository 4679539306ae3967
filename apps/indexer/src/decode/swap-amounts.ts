import { isTokenProgram, tryDecodeBase58 } from '@hadron/domain';
import type { RpcCompiledInstruction } from './rpc-transaction';
import type { TransactionView } from './transaction-view';

/** Account indexes of a swap (Swap accounts [C]: 2 config, 8 user_source, 9 vault_source, 10 vault_dest, 11 user_dest, 13 fee ATA). */
export interface SwapAccounts {
  config: number;
  userSource: number;
  vaultSource: number;
  vaultDest: number;
  userDest: number;
  feeAta: number;
}

export interface SwapAmounts {
  fee: bigint;
  toVault: bigint;
  out: bigint;
}

/** The instructions a swap invoked: `list[from, to)`. */
export interface InstructionRange {
  list: readonly RpcCompiledInstruction[];
  from: number;
  to: number;
}

const TRANSFER = 3; // SPL Token Transfer: [source, destination, authority], amount u64
const TRANSFER_CHECKED = 12; // [source, mint, destination, authority], amount u64, decimals u8

/**
 * A swap's amounts from its OWN inner token transfers, matched by account, never by position:
 * user_source → fee ATA (fee, absent when 0), user_source → vault_source (net input),
 * vault_dest → user_dest (output). Null unless both vault legs are seen.
 */
export function amountsFromTransfers(tx: TransactionView, invoked: InstructionRange, swap: SwapAccounts): SwapAmounts | null {
  let fee = 0n;
  let toVault: bigint | null = null;
  let out: bigint | null = null;
  for (let k = invoked.from; k < invoked.to; k++) {
    const ix = invoked.list[k];
    const source = ix.accounts[0];
    if ((source !== swap.userSource && source !== swap.vaultDest) || !isTokenProgram(tx.keys[ix.programIdIndex])) continue;
    const data = tryDecodeBase58(ix.data);
    if (data === null || data.length < 9) continue;
    const destination = data[0] === TRANSFER ? ix.accounts[1] : data[0] === TRANSFER_CHECKED ? ix.accounts[2] : -1;
    const amount = u64At(data, 1);
    if (source === swap.userSource && destination === swap.vaultSource) toVault = (toVault ?? 0n) + amount;
    else if (source === swap.userSource && destination === swap.feeAta) fee += amount;
    else if (source === swap.vaultDest && destination === swap.userDest) out = (out ?? 0n) + amount;
  }
  return toVault === null || out === null ? null : { fee, toVault, out };
}

/**
 * Fallback: the swap's amounts from the vaults' token-balance deltas and its own amount_in
 * argument. Only sound when this swap is the one Hadron instruction touching its pool in the
 * transaction (checked by the caller). Vault deltas are used rather than the user's, which other
 * programs may also move; the fee is amount_in − Δvault_source (the [C] money flow: the user pays
 * amount_in, of which all but the fee reaches the vault), never the fee ATA's delta — one fee
 * recipient ATA collects from every pool with that input mint, so swaps on two pools in one
 * transaction both move it.
 */
export function amountsFromBalances(tx: TransactionView, swap: SwapAccounts, amountIn: bigint): SwapAmounts | null {
  const vaultSourceAfter = tx.postAmount(swap.vaultSource);
  const vaultDestAfter = tx.postAmount(swap.vaultDest);
  if (vaultSourceAfter === null || vaultDestAfter === null) return null;
  const toVault = vaultSourceAfter - tx.preAmount(swap.vaultSource);
  const out = tx.preAmount(swap.vaultDest) - vaultDestAfter;
  const fee = amountIn - toVault;
  return toVault < 0n || out < 0n || fee < 0n ? null : { fee, toVault, out };
}

function u64At(bytes: Uint8Array, offset: number): bigint {
  const lo = (bytes[offset] | (bytes[offset + 1] << 8) | (bytes[offset + 2] << 16) | (bytes[offset + 3] << 24)) >>> 0;
  const hi = (bytes[offset + 4] | (bytes[offset + 5] << 8) | (bytes[offset + 6] << 16) | (bytes[offset + 7] << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}
