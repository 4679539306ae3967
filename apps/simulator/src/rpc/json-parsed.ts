import { decodeBase58 } from '@hadron/domain';
import { uiTokenAmount } from '../ledger/transaction-executor';
import { decodeSystemCreateAccount, decodeTokenInstruction } from '../spl/spl-instructions';
import { ASSOCIATED_TOKEN_PROGRAM, SPL_TOKEN_PROGRAM, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM } from '../spl/well-known';
import type { JsonTransaction } from './wire-format';

/**
 * `encoding: "jsonParsed"` for transactions, as the RPC renders it: account keys become
 * `{pubkey, signer, source, writable}`; instructions of programs the RPC knows (System, SPL Token,
 * Token-2022, Associated Token Account) become `{parsed: {info, type}, program, programId,
 * stackHeight}`; everything else (Hadron, ComputeBudget, the router) stays partially decoded
 * `{accounts: [pubkey], data, programId, stackHeight}`. Only the instruction kinds the simulator
 * emits are parsed; any other falls back to partially decoded, which the RPC also does.
 */

interface JsonInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

interface JsonMeta {
  innerInstructions: { index: number; instructions: JsonInstruction[] }[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  [key: string]: unknown;
}

export function toJsonParsed(transaction: JsonTransaction, meta: JsonMeta | null): { transaction: unknown; meta: unknown } {
  const m = transaction.message;
  const loaded = meta?.loadedAddresses ?? { writable: [], readonly: [] };
  const keys = [...m.accountKeys, ...loaded.writable, ...loaded.readonly];
  const h = m.header;
  const staticCount = m.accountKeys.length;
  const isWritable = (i: number) => {
    if (i >= staticCount) return i < staticCount + loaded.writable.length;
    if (i < h.numRequiredSignatures) return i < h.numRequiredSignatures - h.numReadonlySignedAccounts;
    return i < staticCount - h.numReadonlyUnsignedAccounts;
  };
  const accountKeys = keys.map((pubkey, i) => ({
    pubkey,
    signer: i < h.numRequiredSignatures,
    source: i < staticCount ? 'transaction' : 'lookupTable',
    writable: isWritable(i),
  }));
  const parse = (ix: JsonInstruction) => parseInstruction(ix, keys);
  const message: Record<string, unknown> = { accountKeys, instructions: (m.instructions as JsonInstruction[]).map(parse), recentBlockhash: m.recentBlockhash };
  if (m.addressTableLookups) message.addressTableLookups = m.addressTableLookups;
  const parsedMeta = meta && {
    ...meta,
    innerInstructions: meta.innerInstructions.map((group) => ({ index: group.index, instructions: group.instructions.map(parse) })),
  };
  return { transaction: { message, signatures: transaction.signatures }, meta: parsedMeta };
}

function parseInstruction(ix: JsonInstruction, keys: readonly string[]): unknown {
  const programId = keys[ix.programIdIndex];
  const accounts = ix.accounts.map((i) => keys[i]);
  const parsed = parseKnown(programId, accounts, decodeBase58(ix.data));
  if (parsed) return { parsed: parsed.parsed, program: parsed.program, programId, stackHeight: ix.stackHeight };
  return { accounts, data: ix.data, programId, stackHeight: ix.stackHeight };
}

function parseKnown(
  programId: string,
  accounts: string[],
  data: Uint8Array,
): { program: string; parsed: { info: Record<string, unknown>; type: string } } | null {
  if (programId === SPL_TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) {
    const program = programId === SPL_TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
    const decoded = decodeTokenInstruction(data);
    switch (decoded.type) {
      case 'transfer':
        return {
          program,
          parsed: { info: { amount: decoded.amount.toString(), authority: accounts[2], destination: accounts[1], source: accounts[0] }, type: 'transfer' },
        };
      case 'transferChecked':
        return {
          program,
          parsed: {
            info: {
              authority: accounts[3],
              destination: accounts[2],
              mint: accounts[1],
              source: accounts[0],
              tokenAmount: uiTokenAmount(decoded.amount, decoded.decimals),
            },
            type: 'transferChecked',
          },
        };
      case 'initializeAccount3':
        return { program, parsed: { info: { account: accounts[0], mint: accounts[1], owner: decoded.owner }, type: 'initializeAccount3' } };
      case 'getAccountDataSize':
        return {
          program,
          parsed: { info: data.length > 1 ? { extensionTypes: ['immutableOwner'], mint: accounts[0] } : { mint: accounts[0] }, type: 'getAccountDataSize' },
        };
      case 'initializeImmutableOwner':
        return { program, parsed: { info: { account: accounts[0] }, type: 'initializeImmutableOwner' } };
      default:
        return null;
    }
  }
  if (programId === SYSTEM_PROGRAM) {
    const create = decodeSystemCreateAccount(data);
    if (!create) return null;
    return {
      program: 'system',
      parsed: {
        info: { lamports: create.lamports, newAccount: accounts[1], owner: create.owner, source: accounts[0], space: create.space },
        type: 'createAccount',
      },
    };
  }
  if (programId === ASSOCIATED_TOKEN_PROGRAM && data.length === 1 && data[0] === 1) {
    return {
      program: 'spl-associated-token-account',
      parsed: {
        info: { account: accounts[1], mint: accounts[3], source: accounts[0], systemProgram: accounts[4], tokenProgram: accounts[5], wallet: accounts[2] },
        type: 'createIdempotent',
      },
    };
  }
  return null;
}
