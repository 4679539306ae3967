import {
  encodeTokenAccount,
  isTokenAccount,
  isTokenProgramId,
  mintDecimals,
  tokenAccountAmount,
  tokenAccountMint,
  tokenAccountOwner,
  withTokenAmount,
} from '../spl/spl-accounts';
import { decodeSystemCreateAccount, decodeTokenInstruction } from '../spl/spl-instructions';
import { COMPUTE_BUDGET_PROGRAM, NATIVE_MINT, SYSTEM_PROGRAM } from '../spl/well-known';
import { RENT_EXEMPT_EPOCH, type AccountState, type Ledger, type StoredTx } from './ledger';
import { compiledInstruction, compileMessage } from './message-compiler';
import type { InnerInstruction, Instruction, TxFailure, TxSpec } from './transaction-spec';

export type { AccountMeta, InnerInstruction, Instruction, LookupTable, TopLevelInstruction, TxFailure, TxSpec } from './transaction-spec';

/**
 * Executes a described transaction against the ledger and records it exactly as the RPC's
 * `getTransaction` (json encoding) shows it. Token balances are not asserted by the caller: the
 * executor interprets every SPL Token `Transfer` / System `CreateAccount` / `InitializeAccount3`
 * (top-level or inner) itself, so pre/post balances always agree with the inner instructions.
 */

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

export interface ExecutedTx {
  stored: StoredTx;
  /** static keys ++ loaded writable ++ loaded readonly */
  accountKeys: string[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}

const LAMPORTS_PER_SIGNATURE = 5000;
const DEFAULT_UNITS: Record<string, number> = { [SYSTEM_PROGRAM]: 150, [COMPUTE_BUDGET_PROGRAM]: 150 };
const TOKEN_UNITS: Record<string, number> = {
  transfer: 4644,
  transferChecked: 6200,
  initializeAccount3: 3158,
  getAccountDataSize: 1569,
  initializeImmutableOwner: 1405,
  other: 3000,
};
const TOKEN_LOG: Record<string, string> = {
  transfer: 'Transfer',
  transferChecked: 'TransferChecked',
  initializeAccount3: 'InitializeAccount3',
  getAccountDataSize: 'GetAccountDataSize',
  initializeImmutableOwner: 'InitializeImmutableOwner',
  other: 'Unknown',
};

export function executeTransaction(ledger: Ledger, slot: number, spec: TxSpec): ExecutedTx {
  const message = compileMessage(spec);
  const keys = message.accountKeys;
  const indexOf = new Map(keys.map((k, i) => [k, i] as const));
  const overlay = new Map<string, AccountState | null>();
  const read = (address: string): AccountState | null => (overlay.has(address) ? overlay.get(address)! : ledger.getAccount(address));
  const write = (address: string, state: AccountState | null) => overlay.set(address, state);

  const signatures = message.signers.map(() => ledger.nextSignature());
  const fee = LAMPORTS_PER_SIGNATURE * signatures.length + spec.priorityFeeLamports;
  const preBalances = keys.map((k) => read(k)?.lamports ?? 0);
  const preTokenBalances = tokenBalances(ledger, keys, read);

  const payer = read(spec.feePayer);
  if (!payer || payer.lamports < fee) throw new Error(`fee payer ${spec.feePayer} cannot pay ${fee}`);
  const payerAfterFee = { ...payer, lamports: payer.lamports - fee };
  write(spec.feePayer, payerAfterFee);

  const logs: string[] = [];
  let consumedTotal = 0;
  let remaining = spec.computeUnitLimit;
  const failure = spec.failure;
  for (const [index, ix] of spec.instructions.entries()) {
    if (failure && index > failure.instructionIndex) break;
    const failing = failure?.instructionIndex === index ? failure : undefined;
    const units = runInstruction(ix, ix.inner ?? [], 1, remaining, logs, failing, failing ? undefined : (i) => applyEffects(i, read, write));
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM) remaining -= units;
    consumedTotal += units;
  }
  if (failure) {
    // Only the fee is charged: drop every effect but the payer's debit.
    overlay.clear();
    overlay.set(spec.feePayer, payerAfterFee);
  } else {
    for (const w of spec.writes ?? []) write(w.address, w.state);
  }

  const postBalances = keys.map((k) => read(k)?.lamports ?? 0);
  const postTokenBalances = tokenBalances(ledger, keys, read);
  for (const [address, state] of overlay) ledger.setAccount(address, state, slot);

  const err = failure ? { InstructionError: [failure.instructionIndex, { Custom: failure.custom }] } : null;
  const innerInstructions = failure
    ? []
    : spec.instructions.flatMap((ix, index) =>
        ix.inner && ix.inner.length > 0
          ? [{ index, instructions: ix.inner.map((inner) => compiledInstruction(inner, indexOf, spec.omitStackHeight ? null : inner.stackHeight)) }]
          : [],
      );
  const meta = {
    computeUnitsConsumed: consumedTotal,
    err,
    fee,
    innerInstructions,
    loadedAddresses: { readonly: message.loadedReadonly, writable: message.loadedWritable },
    logMessages: logs,
    postBalances,
    postTokenBalances,
    preBalances,
    preTokenBalances,
    rewards: [],
    status: err === null ? { Ok: null } : { Err: err },
  };
  const transaction = {
    message: {
      accountKeys: message.staticKeys,
      header: message.header,
      instructions: spec.instructions.map((ix) => compiledInstruction(ix, indexOf, null)),
      recentBlockhash: ledger.recentBlockhash(2 + (signatures[0].charCodeAt(0) % 20)),
      ...(spec.version === 0 ? { addressTableLookups: message.lookups } : {}),
    },
    signatures,
  };
  const stored = ledger.appendTransaction({
    signature: signatures[0],
    slot,
    version: spec.version,
    err,
    metaJson: JSON.stringify(meta),
    transactionJson: JSON.stringify(transaction),
    accountKeys: keys,
  });
  return { stored, accountKeys: keys, preTokenBalances, postTokenBalances };
}

/** Writes the runtime's log lines for one instruction and its CPIs; returns the units it consumed. */
function runInstruction(
  ix: Instruction,
  inner: readonly InnerInstruction[],
  depth: number,
  budget: number,
  logs: string[],
  failure: TxFailure | undefined,
  apply: ((ix: Instruction) => void) | undefined,
): number {
  const program = ix.programId;
  logs.push(`Program ${program} invoke [${depth}]`);
  apply?.(ix);
  if (program === COMPUTE_BUDGET_PROGRAM || program === SYSTEM_PROGRAM) {
    logs.push(`Program ${program} success`);
    return DEFAULT_UNITS[program];
  }
  let own = ix.units ?? 3000;
  if (isTokenProgramId(program)) {
    const kind = decodeTokenInstruction(ix.data).type;
    logs.push(`Program log: Instruction: ${TOKEN_LOG[kind]}`);
    own = TOKEN_UNITS[kind];
  }
  for (const line of ix.logs ?? []) logs.push(`Program log: ${line}`);
  let children = 0;
  // Direct children are the inner instructions one level down; deeper ones belong to them.
  for (let i = 0; i < inner.length; i++) {
    // A program that fails itself (not in a CPI) invokes nothing.
    if (failure && failure.innerIndex === undefined) break;
    const child = inner[i];
    if (child.stackHeight !== depth + 1) continue;
    const grandChildren: InnerInstruction[] = [];
    for (let j = i + 1; j < inner.length && inner[j].stackHeight > depth + 1; j++) grandChildren.push(inner[j]);
    const childFails = failure?.innerIndex === i ? { ...failure, innerIndex: undefined } : undefined;
    children += runInstruction(child, grandChildren, depth + 1, budget - own - children, logs, childFails, childFails ? undefined : apply);
    if (childFails) break;
  }
  const consumed = own + children;
  logs.push(`Program ${program} consumed ${consumed} of ${budget} compute units`);
  if (failure) logs.push(`Program ${program} failed: custom program error: 0x${failure.custom.toString(16)}`);
  else logs.push(`Program ${program} success`);
  return consumed;
}

function applyEffects(ix: Instruction, read: (a: string) => AccountState | null, write: (a: string, s: AccountState | null) => void): void {
  if (ix.programId === SYSTEM_PROGRAM) {
    const create = decodeSystemCreateAccount(ix.data);
    if (!create) return;
    const [from, to] = ix.accounts.map((a) => a.pubkey);
    const payer = mustRead(read, from);
    if (read(to)) throw new Error(`CreateAccount: ${to} already exists`);
    write(from, { ...payer, lamports: payer.lamports - create.lamports });
    write(to, { owner: create.owner, lamports: create.lamports, data: new Uint8Array(create.space), executable: false, rentEpoch: RENT_EXEMPT_EPOCH });
    return;
  }
  if (!isTokenProgramId(ix.programId)) return;
  const decoded = decodeTokenInstruction(ix.data);
  if (decoded.type === 'transfer' || decoded.type === 'transferChecked') {
    const keys = ix.accounts.map((a) => a.pubkey);
    // Transfer: [source, destination, authority]; TransferChecked: [source, mint, destination, authority].
    const [source, dest] = decoded.type === 'transfer' ? [keys[0], keys[1]] : [keys[0], keys[2]];
    const from = mustRead(read, source);
    const to = mustRead(read, dest);
    const fromAmount = tokenAccountAmount(from.data);
    if (fromAmount < decoded.amount) throw new Error(`Transfer: ${source} holds ${fromAmount}, needs ${decoded.amount}`);
    if (tokenAccountMint(from.data) !== tokenAccountMint(to.data)) throw new Error(`Transfer between mints: ${source} → ${dest}`);
    if (decoded.type === 'transferChecked') {
      const mint = mustRead(read, keys[1]);
      if (keys[1] !== tokenAccountMint(from.data) || mintDecimals(mint.data) !== decoded.decimals)
        throw new Error(`TransferChecked: wrong mint or decimals for ${source}`);
    }
    const native = tokenAccountMint(from.data) === NATIVE_MINT ? Number(decoded.amount) : 0;
    write(source, { ...from, lamports: from.lamports - native, data: withTokenAmount(from.data, fromAmount - decoded.amount) });
    const toNow = mustRead(read, dest); // source may equal dest
    write(dest, { ...toNow, lamports: toNow.lamports + native, data: withTokenAmount(toNow.data, tokenAccountAmount(toNow.data) + decoded.amount) });
  } else if (decoded.type === 'initializeAccount3') {
    const [account, mint] = ix.accounts.map((a) => a.pubkey);
    const state = mustRead(read, account);
    const nativeReserve = mint === NATIVE_MINT ? state.lamports : null;
    const data = encodeTokenAccount({ mint, owner: decoded.owner, amount: 0n, nativeReserve, tokenProgram: ix.programId });
    if (data.length !== state.data.length) throw new Error(`InitializeAccount3: ${account} has ${state.data.length} bytes, needs ${data.length}`);
    write(account, { ...state, owner: ix.programId, data });
  }
}

function mustRead(read: (a: string) => AccountState | null, address: string): AccountState {
  const state = read(address);
  if (!state) throw new Error(`account ${address} does not exist`);
  return state;
}

function tokenBalances(ledger: Ledger, keys: readonly string[], read: (a: string) => AccountState | null): TokenBalance[] {
  const out: TokenBalance[] = [];
  keys.forEach((key, accountIndex) => {
    const state = read(key);
    // Token accounts only: a Token-2022 mint with extensions is longer than 165 bytes too.
    if (!state || !isTokenAccount(state.owner, state.data)) return;
    const mint = tokenAccountMint(state.data);
    const mintState = ledger.getAccount(mint);
    if (!mintState) throw new Error(`token account ${key} of unknown mint ${mint}`);
    const decimals = mintDecimals(mintState.data);
    const amount = tokenAccountAmount(state.data);
    out.push({ accountIndex, mint, owner: tokenAccountOwner(state.data), programId: state.owner, uiTokenAmount: uiTokenAmount(amount, decimals) });
  });
  return out;
}

/** As the RPC computes it: uiAmount = amount as f64 / 10^decimals (null for 0), exact string. */
export function uiTokenAmount(amount: bigint, decimals: number): TokenBalance['uiTokenAmount'] {
  const text = amount.toString().padStart(decimals + 1, '0');
  const int = text.slice(0, text.length - decimals);
  const frac = text.slice(text.length - decimals).replace(/0+$/, '');
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: amount === 0n ? null : Number(amount) / 10 ** decimals,
    uiAmountString: frac ? `${int}.${frac}` : int,
  };
}
