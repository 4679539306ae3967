/** JSON-RPC errors with the codes and messages a Solana RPC node uses. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;

export const invalidParams = (detail: string) => new RpcError(INVALID_PARAMS, `Invalid params: ${detail}`);
export const invalidParam = (detail: string) => new RpcError(INVALID_PARAMS, `Invalid param: ${detail}`);

export const blockNotAvailable = (slot: number) => new RpcError(-32004, `Block not available for slot ${slot}`);
export const slotSkipped = (slot: number) => new RpcError(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
export const longTermStorageSlotSkipped = (slot: number) => new RpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`);
export const unsupportedTransactionVersion = (version: number) =>
  new RpcError(
    -32015,
    `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0`,
  );
export const minContextSlotNotReached = (contextSlot: number) => new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot });
