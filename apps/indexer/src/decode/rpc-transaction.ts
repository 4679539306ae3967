/**
 * The parts of a JSON-RPC `getTransaction` result (encoding "json", maxSupportedTransactionVersion 0)
 * that decoding reads. Plain JSON types: the decoder needs no web3.js.
 */

export interface RpcCompiledInstruction {
  /** Index into the full key list: accountKeys ++ loadedAddresses.writable ++ loadedAddresses.readonly. */
  programIdIndex: number;
  accounts: number[];
  /** base58 */
  data: string;
  /** 1 = top level; a CPI one deeper than its caller. Null on transactions older than the field. */
  stackHeight?: number | null;
}

export interface RpcInnerInstructions {
  /** The top-level instruction these ran under. */
  index: number;
  instructions: RpcCompiledInstruction[];
}

export interface RpcTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

export interface RpcTransactionMeta {
  err: unknown;
  innerInstructions?: RpcInnerInstructions[] | null;
  loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  preTokenBalances?: RpcTokenBalance[] | null;
  postTokenBalances?: RpcTokenBalance[] | null;
}

export interface RpcTransactionResult {
  slot: number;
  blockTime?: number | null;
  /** Null when the node has no status metadata for the transaction. */
  meta: RpcTransactionMeta | null;
  transaction: {
    signatures: string[];
    message: { accountKeys: string[]; instructions: RpcCompiledInstruction[] };
  };
}
