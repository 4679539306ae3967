import { getUpdateMetadataAccountV2InstructionDataSerializer } from '@metaplex-foundation/mpl-token-metadata';
import { none, some } from '@metaplex-foundation/umi';
import { decodePubkey, encodeBase58 } from '@hadron/domain';

/** Instruction data of the non-Hadron programs a Hadron transaction touches (program ids: well-known.ts). */

export const TOKEN_TRANSFER = 3;
export const TOKEN_TRANSFER_CHECKED = 12;
export const TOKEN_INITIALIZE_ACCOUNT3 = 18;
export const TOKEN_GET_ACCOUNT_DATA_SIZE = 21;
export const TOKEN_INITIALIZE_IMMUTABLE_OWNER = 22;

/** SPL Token `Transfer` (tag 3, amount u64) — what Hadron's swap CPIs, never TransferChecked. */
export function tokenTransferData(amount: bigint): Uint8Array {
  const data = new Uint8Array(9);
  data[0] = TOKEN_TRANSFER;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  return data;
}

/**
 * SPL Token `TransferChecked` (tag 12, amount u64, decimals u8; accounts source, mint, destination,
 * authority). Never from Hadron itself — a router's own transfers around a swap may use it.
 */
export function tokenTransferCheckedData(amount: bigint, decimals: number): Uint8Array {
  const data = new Uint8Array(10);
  data[0] = TOKEN_TRANSFER_CHECKED;
  new DataView(data.buffer).setBigUint64(1, amount, true);
  data[9] = decimals;
  return data;
}

export function tokenInitializeAccount3Data(owner: string): Uint8Array {
  const data = new Uint8Array(33);
  data[0] = TOKEN_INITIALIZE_ACCOUNT3;
  data.set(decodePubkey(owner), 1);
  return data;
}

export type DecodedTokenInstruction =
  | { type: 'transfer'; amount: bigint }
  | { type: 'transferChecked'; amount: bigint; decimals: number }
  | { type: 'initializeAccount3'; owner: string }
  | { type: 'getAccountDataSize' }
  | { type: 'initializeImmutableOwner' }
  | { type: 'other'; tag: number };

export function decodeTokenInstruction(data: Uint8Array): DecodedTokenInstruction {
  switch (data[0]) {
    case TOKEN_TRANSFER:
      return { type: 'transfer', amount: new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true) };
    case TOKEN_TRANSFER_CHECKED:
      return { type: 'transferChecked', amount: new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(1, true), decimals: data[9] };
    case TOKEN_INITIALIZE_ACCOUNT3:
      return { type: 'initializeAccount3', owner: encodeBase58(data.subarray(1, 33)) };
    case TOKEN_GET_ACCOUNT_DATA_SIZE:
      return { type: 'getAccountDataSize' };
    case TOKEN_INITIALIZE_IMMUTABLE_OWNER:
      return { type: 'initializeImmutableOwner' };
    default:
      return { type: 'other', tag: data[0] };
  }
}

/** System program CreateAccount: u32 index 0, lamports u64, space u64, owner. */
export function systemCreateAccountData(lamports: number, space: number, owner: string): Uint8Array {
  const data = new Uint8Array(52);
  const view = new DataView(data.buffer);
  view.setUint32(0, 0, true);
  view.setBigUint64(4, BigInt(lamports), true);
  view.setBigUint64(12, BigInt(space), true);
  data.set(decodePubkey(owner), 20);
  return data;
}

export function decodeSystemCreateAccount(data: Uint8Array): { lamports: number; space: number; owner: string } | null {
  if (data.length !== 52) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0, true) !== 0) return null;
  return { lamports: Number(view.getBigUint64(4, true)), space: Number(view.getBigUint64(12, true)), owner: encodeBase58(data.subarray(20, 52)) };
}

/** Associated Token Account program `CreateIdempotent`. */
export const ATA_CREATE_IDEMPOTENT = Uint8Array.of(1);

export function setComputeUnitLimitData(units: number): Uint8Array {
  const data = new Uint8Array(5);
  data[0] = 2;
  new DataView(data.buffer).setUint32(1, units, true);
  return data;
}

export function setComputeUnitPriceData(microLamports: bigint): Uint8Array {
  const data = new Uint8Array(9);
  data[0] = 3;
  new DataView(data.buffer).setBigUint64(1, microLamports, true);
  return data;
}

/**
 * Metaplex `UpdateMetadataAccountV2` (accounts: metadata writable, update authority signer) that
 * sets name, symbol and uri and leaves everything else as it is — serialized by mpl-token-metadata.
 */
export function metaplexUpdateMetadataData(data: { name: string; symbol: string; uri: string }): Uint8Array {
  return Uint8Array.from(
    getUpdateMetadataAccountV2InstructionDataSerializer().serialize({
      data: some({ ...data, sellerFeeBasisPoints: 0, creators: none(), collection: none(), uses: none() }),
      newUpdateAuthority: none(),
      primarySaleHappened: none(),
      isMutable: none(),
    }),
  );
}
