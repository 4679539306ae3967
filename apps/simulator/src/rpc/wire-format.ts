import { decodeBase58 } from '@hadron/domain';

/**
 * Serialises a stored json-encoded transaction into the wire format, for `encoding: base64 /
 * base58`. The simulator's signatures are random bytes (nothing is signed), the rest is exact.
 */

interface JsonMessage {
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  accountKeys: string[];
  recentBlockhash: string;
  instructions: { programIdIndex: number; accounts: number[]; data: string }[];
  addressTableLookups?: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
}

export interface JsonTransaction {
  signatures: string[];
  message: JsonMessage;
}

export function serializeTransaction(tx: JsonTransaction, version: 'legacy' | 0): Uint8Array {
  const out: number[] = [];
  const bytes = (b: Uint8Array | number[]) => {
    for (const x of b) out.push(x);
  };
  shortVec(out, tx.signatures.length);
  for (const s of tx.signatures) bytes(decodeBase58(s));
  const m = tx.message;
  if (version === 0) out.push(0x80);
  out.push(m.header.numRequiredSignatures, m.header.numReadonlySignedAccounts, m.header.numReadonlyUnsignedAccounts);
  shortVec(out, m.accountKeys.length);
  for (const k of m.accountKeys) bytes(decodeBase58(k));
  bytes(decodeBase58(m.recentBlockhash));
  shortVec(out, m.instructions.length);
  for (const ix of m.instructions) {
    out.push(ix.programIdIndex);
    shortVec(out, ix.accounts.length);
    bytes(ix.accounts);
    const data = decodeBase58(ix.data);
    shortVec(out, data.length);
    bytes(data);
  }
  if (version === 0) {
    const lookups = m.addressTableLookups ?? [];
    shortVec(out, lookups.length);
    for (const l of lookups) {
      bytes(decodeBase58(l.accountKey));
      shortVec(out, l.writableIndexes.length);
      bytes(l.writableIndexes);
      shortVec(out, l.readonlyIndexes.length);
      bytes(l.readonlyIndexes);
    }
  }
  return Uint8Array.from(out);
}

/** Solana's compact-u16 length prefix. */
function shortVec(out: number[], n: number): void {
  let rest = n;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}
