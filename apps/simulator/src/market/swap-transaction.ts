import { encodeInstruction } from '@hadron/domain';
import type { AccountMeta, InnerInstruction, LookupTable, TopLevelInstruction, TxSpec } from '../ledger/transaction-executor';
import { tokenAccountRent, tokenAccountSize } from '../spl/spl-accounts';
import {
  ATA_CREATE_IDEMPOTENT,
  systemCreateAccountData,
  tokenInitializeAccount3Data,
  tokenTransferCheckedData,
  tokenTransferData,
  TOKEN_GET_ACCOUNT_DATA_SIZE,
  TOKEN_INITIALIZE_IMMUTABLE_OWNER,
} from '../spl/spl-instructions';
import { ASSOCIATED_TOKEN_PROGRAM, SYSTEM_PROGRAM, SYSVAR_CLOCK, SYSVAR_INSTRUCTIONS, TOKEN_2022_PROGRAM } from '../spl/well-known';
import type { InstructionLocation } from './ground-truth';
import type { PoolRuntime } from './pool-runtime';

/**
 * Hadron swap transactions as wallets and routers send them: the 16 (or 18, with a spread config)
 * swap accounts in the confirmed order, and the swap's inner SPL Transfers in the order the real
 * program makes them (user → fee ATA, omitted when the fee is 0; user → vault; vault → user).
 */

export type SwapRoute =
  | 'legacy-direct'
  | 'v0-direct'
  | 'legacy-cpi'
  | 'v0-cpi'
  | 'legacy-double'
  | 'v0-cpi-double'
  /** Two swaps on one pool: the first top level, the second through the router. */
  | 'legacy-direct-cpi'
  | 'v0-direct-cpi';

export interface PlannedSwap {
  isX: boolean;
  /** The is_x byte sent: 0 for a buy; 1 — or any other non-zero value [C] — for a sell. */
  isXByte: number;
  amountIn: bigint;
  minOut: bigint;
  expiration: bigint;
  fee: bigint;
  amountOut: bigint;
  userSource: string;
  userDest: string;
  inMint: string;
  outMint: string;
  inProgram: string;
  outProgram: string;
  /** The oracle this swap was priced at (the midprice and spread in effect when it executes). */
  midpriceQ32: bigint;
  spreadFactorQ32: bigint;
}

/**
 * The router's own platform fee, taken after the swaps with a TransferChecked from the user's
 * output account (an aggregator does that; Hadron itself only ever uses plain Transfer).
 */
export interface RouterPlatformFee {
  from: string;
  to: string;
  mint: string;
  tokenProgram: string;
  decimals: number;
  amount: bigint;
}

export interface SwapTxRequest {
  pool: PoolRuntime;
  trader: string;
  route: SwapRoute;
  swaps: PlannedSwap[];
  routerProgram: string;
  lookupTable: LookupTable;
  /** The first swap's destination token account does not exist yet: create it in the tx. */
  createDestAccount: boolean;
  /** Custom error of the (first) swap, or null when it succeeds. */
  failure: number | null;
  /** CPI routes only. */
  platformFee?: RouterPlatformFee;
  /** Serve the inner instructions without stackHeight (a transaction from before the field existed). */
  omitStackHeight?: boolean;
}

export interface BuiltSwapTx {
  spec: Omit<TxSpec, 'computeUnitLimit' | 'priorityFeeLamports'>;
  /** Where each swap instruction sits, relative to spec.instructions. */
  locations: InstructionLocation[];
}

const SWAP_UNITS = 25_182;
const ROUTER_UNITS = 30_000;

export function buildSwapTransaction(req: SwapTxRequest): BuiltSwapTx {
  const { pool, trader, route, swaps } = req;
  const instructions: TopLevelInstruction[] = [];
  if (req.createDestAccount) instructions.push(createAtaInstruction(trader, swaps[0].userDest, swaps[0].outMint, swaps[0].outProgram));
  const locations: InstructionLocation[] = [];
  const viaRouter = route === 'legacy-cpi' || route === 'v0-cpi' || route === 'v0-cpi-double' ? swaps : route.endsWith('direct-cpi') ? swaps.slice(1) : [];
  for (const s of swaps.slice(0, swaps.length - viaRouter.length)) {
    locations.push({ top_level_index: instructions.length, inner_index: null });
    instructions.push({ ...swapInstruction(pool, trader, s), inner: transfers(pool, trader, s, 2) });
  }
  if (viaRouter.length > 0) {
    const inner: InnerInstruction[] = [];
    for (const s of viaRouter) {
      locations.push({ top_level_index: instructions.length, inner_index: inner.length });
      inner.push({ ...swapInstruction(pool, trader, s), stackHeight: 2 });
      inner.push(...transfers(pool, trader, s, 3));
    }
    const accounts: AccountMeta[] = [{ pubkey: pool.programId, isSigner: false, isWritable: false }];
    for (const s of viaRouter) accounts.push(...swapAccounts(pool, trader, s));
    const fee = req.platformFee;
    if (fee) {
      inner.push({
        programId: fee.tokenProgram,
        accounts: [w(fee.from), ro(fee.mint), w(fee.to), { pubkey: trader, isSigner: true, isWritable: true }],
        data: tokenTransferCheckedData(fee.amount, fee.decimals),
        stackHeight: 2,
      });
      accounts.push(w(fee.to), ro(fee.mint), ro(fee.tokenProgram));
    }
    instructions.push({
      programId: req.routerProgram,
      accounts: dedupe(accounts),
      data: Uint8Array.of(229, 23, 203, 151, viaRouter.length),
      units: ROUTER_UNITS,
      logs: ['Instruction: Route'],
      inner,
    });
  }
  const failIndex = locations[0].top_level_index;
  const failure = req.failure === null ? undefined : { instructionIndex: failIndex, custom: req.failure, innerIndex: locations[0].inner_index ?? undefined };
  const v0 = route.startsWith('v0');
  return {
    spec: {
      version: v0 ? 0 : 'legacy',
      feePayer: trader,
      instructions,
      lookupTables: v0 ? [req.lookupTable] : undefined,
      failure,
      omitStackHeight: req.omitStackHeight,
    },
    locations,
  };
}

function swapInstruction(pool: PoolRuntime, trader: string, s: PlannedSwap) {
  return {
    programId: pool.programId,
    accounts: swapAccounts(pool, trader, s),
    data: encodeInstruction({
      tag: 3,
      instruction: 'Swap',
      is_x: s.isXByte,
      amount_in: s.amountIn.toString(),
      min_out: s.minOut.toString(),
      expiration: s.expiration.toString(),
    }),
    units: SWAP_UNITS - 3 * 4644,
  };
}

/** The confirmed swap account order (DESIGN §2). */
function swapAccounts(pool: PoolRuntime, trader: string, s: PlannedSwap): AccountMeta[] {
  const a = pool.addresses;
  const [vaultSource, vaultDest] = s.isX ? [a.vault_x.address, a.vault_y.address] : [a.vault_y.address, a.vault_x.address];
  const accounts = [
    ro(pool.tokenProgramX),
    ro(pool.tokenProgramY),
    ro(a.config.address),
    ro(a.midprice_oracle.address),
    ro(a.curve_meta.address),
    w(a.curve_prefabs.address),
    ro(a.config.address),
    { pubkey: trader, isSigner: true, isWritable: true },
    w(s.userSource),
    w(vaultSource),
    w(vaultDest),
    w(s.userDest),
    ro(pool.fee.address),
    w(pool.fee.atas[s.inMint]),
    ro(SYSVAR_CLOCK),
    w(a.curve_updates.address),
  ];
  if (pool.config.spread_config_initialized) accounts.push(ro(a.spread_config.address), ro(SYSVAR_INSTRUCTIONS));
  return accounts;
}

function transfers(pool: PoolRuntime, trader: string, s: PlannedSwap, stackHeight: number): InnerInstruction[] {
  const a = pool.addresses;
  const [vaultSource, vaultDest] = s.isX ? [a.vault_x.address, a.vault_y.address] : [a.vault_y.address, a.vault_x.address];
  const out: InnerInstruction[] = [];
  const transfer = (program: string, from: string, to: string, authority: string, amount: bigint): InnerInstruction => ({
    programId: program,
    accounts: [w(from), w(to), ro(authority)],
    data: tokenTransferData(amount),
    stackHeight,
  });
  if (s.fee > 0n) out.push(transfer(s.inProgram, s.userSource, pool.fee.atas[s.inMint], trader, s.fee));
  out.push(transfer(s.inProgram, s.userSource, vaultSource, trader, s.amountIn - s.fee));
  out.push(transfer(s.outProgram, vaultDest, s.userDest, a.config.address, s.amountOut));
  return out;
}

/** ATA CreateIdempotent with its CPIs, as in fixtures/hadron b_v2_buy_x_v0_lookup_table. */
function createAtaInstruction(wallet: string, ata: string, mint: string, tokenProgram: string): TopLevelInstruction {
  const token2022 = tokenProgram === TOKEN_2022_PROGRAM;
  return {
    programId: ASSOCIATED_TOKEN_PROGRAM,
    accounts: [{ pubkey: wallet, isSigner: true, isWritable: true }, w(ata), ro(wallet), ro(mint), ro(SYSTEM_PROGRAM), ro(tokenProgram)],
    data: ATA_CREATE_IDEMPOTENT,
    units: 8_506,
    logs: ['CreateIdempotent'],
    inner: [
      {
        programId: tokenProgram,
        accounts: [ro(mint)],
        data: token2022 ? Uint8Array.of(TOKEN_GET_ACCOUNT_DATA_SIZE, 7, 0) : Uint8Array.of(TOKEN_GET_ACCOUNT_DATA_SIZE),
        stackHeight: 2,
      },
      {
        programId: SYSTEM_PROGRAM,
        accounts: [
          { pubkey: wallet, isSigner: true, isWritable: true },
          { pubkey: ata, isSigner: true, isWritable: true },
        ],
        data: systemCreateAccountData(tokenAccountRent(tokenProgram), tokenAccountSize(tokenProgram), tokenProgram),
        stackHeight: 2,
      },
      { programId: tokenProgram, accounts: [w(ata)], data: Uint8Array.of(TOKEN_INITIALIZE_IMMUTABLE_OWNER), stackHeight: 2 },
      { programId: tokenProgram, accounts: [w(ata), ro(mint)], data: tokenInitializeAccount3Data(wallet), stackHeight: 2 },
    ],
  };
}

function dedupe(accounts: AccountMeta[]): AccountMeta[] {
  const seen = new Set<string>();
  const out: AccountMeta[] = [];
  for (const a of accounts) {
    const key = `${a.pubkey}/${a.isSigner}/${a.isWritable}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(a);
  }
  return out;
}

const ro = (pubkey: string): AccountMeta => ({ pubkey, isSigner: false, isWritable: false });
const w = (pubkey: string): AccountMeta => ({ pubkey, isSigner: false, isWritable: true });
