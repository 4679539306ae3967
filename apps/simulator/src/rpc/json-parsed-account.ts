import { ACCOUNT_SIZE, ExtensionType, getExtensionData, getExtensionTypes, getMetadataPointerState, unpackMint } from '@solana/spl-token';
import { unpack as unpackTokenMetadata } from '@solana/spl-token-metadata';
import { PublicKey } from '@solana/web3.js';
import { encodeBase58 } from '@hadron/domain';
import type { AccountState, Ledger } from '../ledger/ledger';
import { uiTokenAmount } from '../ledger/transaction-executor';
import { isMintAccount, isTokenAccount, tokenAccountAmount, tokenAccountMint, tokenAccountOwner } from '../spl/spl-accounts';
import { NATIVE_MINT, SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from '../spl/well-known';

/** jsonParsed of SPL token accounts and mints (others fall back to base64, as the RPC does). */
export function parsedAccount(state: AccountState, ledger: Ledger, slot: number): unknown {
  if (state.owner !== SPL_TOKEN_PROGRAM && state.owner !== TOKEN_2022_PROGRAM) return null;
  const program = state.owner === SPL_TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022';
  const d = state.data;
  if (isMintAccount(state.owner, d)) {
    const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
    const option = (at: number) => (view.getUint32(at, true) === 1 ? encodeBase58(d.subarray(at + 4, at + 36)) : null);
    const extensions = parsedMintExtensions(state.owner, d);
    const info = {
      decimals: d[44],
      ...(extensions ? { extensions } : {}),
      freezeAuthority: option(46),
      isInitialized: d[45] === 1,
      mintAuthority: option(0),
      supply: view.getBigUint64(36, true).toString(),
    };
    return { parsed: { info, type: 'mint' }, program, space: d.length };
  }
  if (isTokenAccount(state.owner, d)) {
    const mint = tokenAccountMint(d);
    const mintState = ledger.getAccount(mint, slot);
    if (!mintState) return null;
    const native = mint === NATIVE_MINT;
    const info: Record<string, unknown> = {
      isNative: native,
      mint,
      owner: tokenAccountOwner(d),
      ...(native ? { rentExemptReserve: uiTokenAmount(BigInt(state.lamports) - tokenAccountAmount(d), 9) } : {}),
      state: 'initialized',
      tokenAmount: uiTokenAmount(tokenAccountAmount(d), mintState.data[44]),
    };
    if (program === 'spl-token-2022') info.extensions = [{ extension: 'immutableOwner' }];
    return { parsed: { info, type: 'account' }, program, space: d.length };
  }
  return null;
}

/**
 * `extensions` of a Token-2022 mint's jsonParsed info, read with spl-token and spl-token-metadata
 * and named as the RPC's account decoder names them (`{extension, state}`, keys in its order).
 * Null for a mint without extensions (the RPC then prints none).
 */
function parsedMintExtensions(owner: string, data: Uint8Array): unknown[] | null {
  if (owner !== TOKEN_2022_PROGRAM || data.length <= ACCOUNT_SIZE) return null;
  const program = new PublicKey(TOKEN_2022_PROGRAM);
  const mint = unpackMint(
    PublicKey.default,
    { data: Buffer.from(data.buffer, data.byteOffset, data.byteLength), owner: program, lamports: 0, executable: false },
    program,
  );
  const key = (k: PublicKey | null | undefined) => (k ? k.toBase58() : null);
  return getExtensionTypes(mint.tlvData).map((type) => {
    if (type === ExtensionType.MetadataPointer) {
      const pointer = getMetadataPointerState(mint);
      return { extension: 'metadataPointer', state: { authority: key(pointer?.authority), metadataAddress: key(pointer?.metadataAddress) } };
    }
    const value = type === ExtensionType.TokenMetadata ? getExtensionData(type, mint.tlvData) : null;
    if (value === null) return { extension: 'unparseableExtension' };
    const meta = unpackTokenMetadata(value);
    return {
      extension: 'tokenMetadata',
      state: {
        additionalMetadata: meta.additionalMetadata,
        mint: meta.mint.toBase58(),
        name: meta.name,
        symbol: meta.symbol,
        updateAuthority: key(meta.updateAuthority),
        uri: meta.uri,
      },
    };
  });
}
