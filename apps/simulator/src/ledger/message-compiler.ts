import { encodeBase58 } from '@hadron/domain';
import type { Instruction, TxSpec } from './transaction-spec';

/** A message's account keys, header and lookups, and instructions as indexes into those keys. */

export function compiledInstruction(ix: Instruction, indexOf: ReadonlyMap<string, number>, stackHeight: number | null) {
  const index = (key: string) => {
    const i = indexOf.get(key);
    if (i === undefined) throw new Error(`${key} is not an account of this transaction`);
    return i;
  };
  return { programIdIndex: index(ix.programId), accounts: ix.accounts.map((a) => index(a.pubkey)), data: encodeBase58(ix.data), stackHeight };
}

interface KeyMeta {
  isSigner: boolean;
  isWritable: boolean;
  isInvoked: boolean;
}

export interface CompiledMessage {
  signers: string[];
  staticKeys: string[];
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  loadedWritable: string[];
  loadedReadonly: string[];
  lookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  accountKeys: string[];
}

/**
 * Orders account keys as web3.js' MessageV0.compile / Transaction.compileMessage do: fee payer
 * first, then writable signers, readonly signers, writable non-signers, readonly non-signers, each
 * in first-appearance order; a v0 message moves non-signer, non-invoked keys found in its lookup
 * tables to the loaded addresses. Inner instructions may only use keys already present.
 */
export function compileMessage(spec: TxSpec): CompiledMessage {
  const metas = new Map<string, KeyMeta>();
  const meta = (key: string) => {
    let m = metas.get(key);
    if (!m) {
      m = { isSigner: false, isWritable: false, isInvoked: false };
      metas.set(key, m);
    }
    return m;
  };
  Object.assign(meta(spec.feePayer), { isSigner: true, isWritable: true });
  for (const ix of spec.instructions) {
    meta(ix.programId).isInvoked = true;
    for (const a of ix.accounts) {
      const m = meta(a.pubkey);
      m.isSigner ||= a.isSigner;
      m.isWritable ||= a.isWritable;
    }
  }
  const lookups: CompiledMessage['lookups'] = [];
  const loadedWritable: string[] = [];
  const loadedReadonly: string[] = [];
  if (spec.version === 0) {
    for (const table of spec.lookupTables ?? []) {
      const drain = (writable: boolean, into: string[]) => {
        const indexes: number[] = [];
        for (const [key, m] of metas) {
          if (m.isSigner || m.isInvoked || m.isWritable !== writable) continue;
          const at = table.addresses.indexOf(key);
          if (at < 0) continue;
          indexes.push(at);
          into.push(key);
          metas.delete(key);
        }
        return indexes;
      };
      const writableIndexes = drain(true, loadedWritable);
      const readonlyIndexes = drain(false, loadedReadonly);
      if (writableIndexes.length + readonlyIndexes.length > 0) lookups.push({ accountKey: table.address, writableIndexes, readonlyIndexes });
    }
  } else if (spec.lookupTables?.length) {
    throw new Error('a legacy message cannot use lookup tables');
  }
  const entries = [...metas];
  const group = (signer: boolean, writable: boolean) => entries.filter(([, m]) => m.isSigner === signer && m.isWritable === writable).map(([k]) => k);
  const writableSigners = group(true, true);
  const readonlySigners = group(true, false);
  const writableNonSigners = group(false, true);
  const readonlyNonSigners = group(false, false);
  const staticKeys = [...writableSigners, ...readonlySigners, ...writableNonSigners, ...readonlyNonSigners];
  return {
    signers: [...writableSigners, ...readonlySigners],
    staticKeys,
    header: {
      numRequiredSignatures: writableSigners.length + readonlySigners.length,
      numReadonlySignedAccounts: readonlySigners.length,
      numReadonlyUnsignedAccounts: readonlyNonSigners.length,
    },
    loadedWritable,
    loadedReadonly,
    lookups,
    accountKeys: [...staticKeys, ...loadedWritable, ...loadedReadonly],
  };
}
