import { ACCOUNT_SIZE, ExtensionType, getExtensionData, getExtensionTypes, getMetadataPointerState, unpackMint } from '@solana/spl-token';
import { unpack as unpackTokenMetadata } from '@solana/spl-token-metadata';
import { PublicKey } from '@solana/web3.js';
import { encodeBase58, tryDecodeBase58 } from '@hadron/domain';
import type { AccountState, BlockRecord, Commitment, Ledger, StoredTx } from '../ledger/ledger';
import { uiTokenAmount } from '../ledger/transaction-executor';
import type { SimulatedMarket } from '../market/market-generator';
import { isMintAccount, isTokenAccount, rentExempt, tokenAccountAmount, tokenAccountMint, tokenAccountOwner } from '../spl/spl-accounts';
import { NATIVE_MINT, SPL_TOKEN_PROGRAM, TOKEN_2022_PROGRAM } from '../spl/well-known';
import type { FaultInjector } from './faults';
import { toJsonParsed } from './json-parsed';
import {
  blockNotAvailable,
  invalidParam,
  invalidParams,
  longTermStorageSlotSkipped,
  METHOD_NOT_FOUND,
  minContextSlotNotReached,
  RpcError,
  slotSkipped,
  unsupportedTransactionVersion,
} from './rpc-errors';
import { serializeTransaction, type JsonTransaction } from './wire-format';

/**
 * The Solana JSON-RPC methods the simulated cluster answers. Params follow the real API
 * (positional, with an optional config object last); results are byte-shaped like a validator's
 * (stored transactions are spliced in as JSON text, never re-serialised).
 */

export interface ClusterContext {
  name: string;
  market: SimulatedMarket;
  faults: FaultInjector;
}

/** A result already serialised to JSON text. */
export class RawJson {
  constructor(readonly json: string) {}
}

type Handler = (params: readonly unknown[], ctx: ClusterContext) => unknown;

const API_VERSION = '2.1.21';
const MAX_MULTIPLE_ACCOUNTS = 100;
const MAX_SIGNATURES_LIMIT = 1000;
const MAX_BLOCKS_RANGE = 500_000;
const SLOTS_PER_EPOCH = 432_000;
const MAX_BASE58_ACCOUNT_BYTES = 128;
const MAX_FILTERS = 4;

export const METHODS: Readonly<Record<string, Handler>> = {
  getAccountInfo(params, ctx) {
    const address = pubkeyParam(params[0]);
    const config = configParam(params[1]);
    const slot = contextSlot(ctx.market.ledger, config);
    const state = ctx.market.ledger.getAccount(address, slot);
    return withContext(slot, state ? encodeAccount(state, config, ctx.market.ledger, slot) : new RawJson('null'));
  },

  getMultipleAccounts(params, ctx) {
    if (!Array.isArray(params[0])) throw invalidParams('expected an array of public keys');
    if (params[0].length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
    const addresses = params[0].map(pubkeyParam);
    const config = configParam(params[1]);
    const slot = contextSlot(ctx.market.ledger, config);
    const values = addresses.map((a) => {
      const state = ctx.market.ledger.getAccount(a, slot);
      return state ? encodeAccount(state, config, ctx.market.ledger, slot).json : 'null';
    });
    return withContext(slot, new RawJson(`[${values.join(',')}]`));
  },

  getProgramAccounts(params, ctx) {
    const program = pubkeyParam(params[0]);
    const config = configParam(params[1]);
    const filters = filtersParam(config.filters);
    const slot = contextSlot(ctx.market.ledger, config);
    const out: string[] = [];
    for (const [address, state] of ctx.market.ledger.accountsOwnedBy(program, slot)) {
      if (filters.every((f) => f(state.data))) out.push(`{"account":${encodeAccount(state, config, ctx.market.ledger, slot).json},"pubkey":"${address}"}`);
    }
    const list = new RawJson(`[${out.join(',')}]`);
    return config.withContext === true ? withContext(slot, list) : list;
  },

  getBalance(params, ctx) {
    const address = pubkeyParam(params[0]);
    const config = configParam(params[1]);
    const slot = contextSlot(ctx.market.ledger, config);
    return withContext(slot, ctx.market.ledger.getAccount(address, slot)?.lamports ?? 0);
  },

  getTokenAccountBalance(params, ctx) {
    const address = pubkeyParam(params[0]);
    const config = configParam(params[1]);
    const slot = contextSlot(ctx.market.ledger, config);
    const state = ctx.market.ledger.getAccount(address, slot);
    if (!state || !isTokenAccount(state.owner, state.data)) throw invalidParam('not a Token account');
    const mint = ctx.market.ledger.getAccount(tokenAccountMint(state.data), slot);
    return withContext(slot, uiTokenAmount(tokenAccountAmount(state.data), mint?.data[44] ?? 0));
  },

  getSignaturesForAddress(params, ctx) {
    const address = pubkeyParam(params[0]);
    const config = configParam(params[1]);
    const ledger = ctx.market.ledger;
    const commitment = atLeastConfirmed(config);
    const limit = config.limit === undefined || config.limit === null ? MAX_SIGNATURES_LIMIT : config.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_SIGNATURES_LIMIT)
      throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
    const before = optionalSignature(config.before);
    const until = optionalSignature(config.until);
    // The index may trail the bank (fault injection): its slot is the call's context slot.
    const bank = ledger.visibleSlot(commitment);
    const maxSlot = ctx.faults.signatureIndexSlot(bank);
    if (maxSlot < bank) ctx.faults.noteIndexLag();
    checkMinContextSlot(ctx.faults.current.signatureIndexContext === 'bank' ? bank : maxSlot, config);
    return ledger.signaturesFor(address, { before, until, limit, maxSlot }).map((tx) => ({
      blockTime: tx.blockTime,
      confirmationStatus: ledger.confirmationStatusOf(tx.slot),
      err: tx.err,
      memo: null,
      signature: tx.signature,
      slot: tx.slot,
    }));
  },

  getTransaction(params, ctx) {
    const signature = signatureParam(params[0]);
    const config = typeof params[1] === 'string' ? { encoding: params[1] } : configParam(params[1]);
    const commitment = atLeastConfirmed(config);
    const encoding = encodingParam(config.encoding, ['json', 'jsonParsed', 'base64', 'base58'], 'json');
    const maxVersion = maxVersionParam(config.maxSupportedTransactionVersion);
    const ledger = ctx.market.ledger;
    const tx = ledger.transaction(signature);
    if (!tx || tx.slot > ledger.visibleSlot(commitment)) return null;
    if (ctx.faults.hideTransaction(signature)) return null;
    if (tx.version === 0 && maxVersion === null) throw unsupportedTransactionVersion(0);
    const body = renderTransaction(tx, encoding, maxVersion !== null);
    return new RawJson(`{"blockTime":${tx.blockTime},${body.slice(1, -1)},"slot":${tx.slot}}`);
  },

  getSignatureStatuses(params, ctx) {
    if (!Array.isArray(params[0])) throw invalidParams('expected an array of signatures');
    if (params[0].length > 256) throw invalidParams('Too many inputs provided; max 256');
    const ledger = ctx.market.ledger;
    const head = ledger.visibleSlot('processed');
    const value = params[0].map(signatureParam).map((sig) => {
      const tx = ledger.transaction(sig);
      if (!tx) return null;
      const status = ledger.confirmationStatusOf(tx.slot);
      return {
        confirmationStatus: status,
        confirmations: status === 'finalized' ? null : Math.max(0, head - tx.slot),
        err: tx.err,
        slot: tx.slot,
        status: tx.err === null ? { Ok: null } : { Err: tx.err },
      };
    });
    return { context: { apiVersion: API_VERSION, slot: head }, value };
  },

  getSlot(params, ctx) {
    const config = configParam(params[0]);
    const slot = ctx.market.ledger.visibleSlot(commitmentParam(config.commitment));
    checkMinContextSlot(slot, config);
    return slot;
  },

  getBlockHeight(params, ctx) {
    const config = configParam(params[0]);
    const slot = ctx.market.ledger.visibleSlot(commitmentParam(config.commitment));
    return ctx.market.ledger.latestBlock(slot)?.blockHeight ?? 0;
  },

  getBlockTime(params, ctx) {
    const slot = slotParam(params[0]);
    return blockAt(ctx.market.ledger, slot, 'finalized').blockTime;
  },

  getBlock(params, ctx) {
    const slot = slotParam(params[0]);
    const config = typeof params[1] === 'string' ? { encoding: params[1] } : configParam(params[1]);
    const commitment = atLeastConfirmed(config);
    const encoding = encodingParam(config.encoding, ['json', 'jsonParsed', 'base64', 'base58'], 'json');
    const details = config.transactionDetails ?? 'full';
    if (!['full', 'signatures', 'none'].includes(details as string)) throw invalidParams(`unsupported transactionDetails: ${String(details)}`);
    const maxVersion = maxVersionParam(config.maxSupportedTransactionVersion);
    const block = blockAt(ctx.market.ledger, slot, commitment);
    const head = `{"blockHeight":${block.blockHeight},"blockTime":${block.blockTime},"blockhash":"${block.blockhash}","parentSlot":${block.parentSlot},"previousBlockhash":"${block.previousBlockhash}"`;
    const rewards = config.rewards === false ? '' : ',"rewards":[]';
    if (details === 'none') return new RawJson(`${head}${rewards}}`);
    if (details === 'signatures') return new RawJson(`${head}${rewards},"signatures":${JSON.stringify(block.transactions.map((t) => t.signature))}}`);
    if (maxVersion === null && block.transactions.some((t) => t.version === 0)) throw unsupportedTransactionVersion(0);
    const txs = block.transactions.map((t) => renderTransaction(t, encoding, maxVersion !== null));
    return new RawJson(`${head}${rewards},"transactions":[${txs.join(',')}]}`);
  },

  getBlocks(params, ctx) {
    const start = slotParam(params[0]);
    const hasEnd = typeof params[1] === 'number';
    const config = configParam(hasEnd ? params[2] : params[1]);
    const visible = ctx.market.ledger.visibleSlot(atLeastConfirmed(config));
    const end = hasEnd ? slotParam(params[1]) : visible;
    if (end - start > MAX_BLOCKS_RANGE) throw invalidParams(`Slot range too large; max ${MAX_BLOCKS_RANGE}`);
    return ctx.market.ledger.blockSlotsBetween(start, Math.min(end, visible));
  },

  getBlocksWithLimit(params, ctx) {
    const start = slotParam(params[0]);
    const limit = slotParam(params[1]);
    if (limit > MAX_BLOCKS_RANGE) throw invalidParams(`Limit too large; max ${MAX_BLOCKS_RANGE}`);
    const visible = ctx.market.ledger.visibleSlot(atLeastConfirmed(configParam(params[2])));
    return ctx.market.ledger.blockSlotsBetween(start, visible).slice(0, limit);
  },

  getFirstAvailableBlock(_params, ctx) {
    return ctx.market.ledger.firstBlockSlot() ?? 0;
  },

  getLatestBlockhash(params, ctx) {
    const config = configParam(params[0]);
    const ledger = ctx.market.ledger;
    const slot = ledger.visibleSlot(commitmentParam(config.commitment));
    checkMinContextSlot(slot, config);
    const block = ledger.latestBlock(slot);
    if (!block) throw blockNotAvailable(slot);
    return withContext(slot, { blockhash: block.blockhash, lastValidBlockHeight: block.blockHeight + 150 });
  },

  getEpochInfo(params, ctx) {
    const ledger = ctx.market.ledger;
    const slot = ledger.visibleSlot(commitmentParam(configParam(params[0]).commitment));
    return {
      absoluteSlot: slot,
      blockHeight: ledger.latestBlock(slot)?.blockHeight ?? 0,
      epoch: Math.floor(slot / SLOTS_PER_EPOCH),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ledger.transactionCount,
    };
  },

  getMinimumBalanceForRentExemption(params) {
    const size = params[0];
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > 10 * 1024 * 1024) throw invalidParams('expected a data length');
    return rentExempt(size);
  },

  getGenesisHash(_params, ctx) {
    return ctx.market.ledger.genesisHash;
  },

  getVersion() {
    return { 'feature-set': 3294202862, 'solana-core': API_VERSION };
  },

  getHealth() {
    return 'ok';
  },

  getIdentity(_params, ctx) {
    return { identity: ctx.market.keys.key('validator-identity') };
  },
};

export function dispatch(method: string, params: readonly unknown[], ctx: ClusterContext): unknown {
  const handler = Object.prototype.hasOwnProperty.call(METHODS, method) ? METHODS[method] : undefined;
  if (!handler) throw new RpcError(METHOD_NOT_FOUND, 'Method not found');
  return handler(params, ctx);
}

// ---- rendering ------------------------------------------------------------------------------------

function withContext(slot: number, value: unknown): RawJson {
  const json = value instanceof RawJson ? value.json : JSON.stringify(value);
  return new RawJson(`{"context":{"apiVersion":"${API_VERSION}","slot":${slot}},"value":${json}}`);
}

/** `{meta, transaction, version?}` of one stored transaction in the requested encoding. */
function renderTransaction(tx: StoredTx, encoding: string, withVersion: boolean): string {
  const version = withVersion ? `,"version":${tx.version === 0 ? '0' : '"legacy"'}` : '';
  if (encoding === 'json') return `{"meta":${tx.metaJson},"transaction":${tx.transactionJson}${version}}`;
  const transaction = JSON.parse(tx.transactionJson) as JsonTransaction;
  if (encoding === 'jsonParsed') {
    const parsed = toJsonParsed(transaction, JSON.parse(tx.metaJson));
    return `{"meta":${JSON.stringify(parsed.meta)},"transaction":${JSON.stringify(parsed.transaction)}${version}}`;
  }
  const bytes = serializeTransaction(transaction, tx.version);
  const text = encoding === 'base64' ? Buffer.from(bytes).toString('base64') : encodeBase58(bytes);
  return `{"meta":${tx.metaJson},"transaction":${JSON.stringify([text, encoding])}${version}}`;
}

/** Account JSON as the RPC renders it (rentEpoch u64::MAX printed exactly). */
function encodeAccount(state: AccountState, config: Config, ledger: Ledger, slot: number): RawJson {
  const encoding = encodingParam(config.encoding, ['base64', 'base58', 'jsonParsed', 'base64+zstd'], 'base58');
  if (encoding === 'base64+zstd') throw invalidParams('base64+zstd encoding is not supported by the simulated cluster; use base64');
  let data = state.data;
  const slice = config.dataSlice;
  if (slice !== undefined && slice !== null) {
    if (typeof slice !== 'object' || !Number.isInteger((slice as { offset?: unknown }).offset) || !Number.isInteger((slice as { length?: unknown }).length)) {
      throw invalidParams('dataSlice needs integer offset and length');
    }
    const { offset, length } = slice as { offset: number; length: number };
    data = data.subarray(offset, offset + length);
  }
  let dataJson: string;
  const parsed = encoding === 'jsonParsed' && slice === undefined ? parsedAccount(state, ledger, slot) : null;
  if (parsed !== null) {
    dataJson = JSON.stringify(parsed);
  } else if (encoding === 'base58') {
    if (data.length > MAX_BASE58_ACCOUNT_BYTES) throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
    dataJson = `["${encodeBase58(data)}","base58"]`;
  } else {
    dataJson = `["${Buffer.from(data).toString('base64')}","base64"]`;
  }
  const rentEpoch = state.rentEpoch === 18446744073709551615 ? '18446744073709551615' : String(state.rentEpoch);
  return new RawJson(
    `{"data":${dataJson},"executable":${state.executable},"lamports":${state.lamports},"owner":"${state.owner}","rentEpoch":${rentEpoch},"space":${state.data.length}}`,
  );
}

/** jsonParsed of SPL token accounts and mints (others fall back to base64, as the RPC does). */
function parsedAccount(state: AccountState, ledger: Ledger, slot: number): unknown {
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

// ---- params -----------------------------------------------------------------------------------

type Config = Record<string, unknown>;

function configParam(value: unknown): Config {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidParams('expected a configuration object');
  return value as Config;
}

function pubkeyParam(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('expected a base58 public key string');
  const bytes = tryDecodeBase58(value);
  if (bytes === null) throw invalidParam('Invalid');
  if (bytes.length !== 32) throw invalidParam('WrongSize');
  return value;
}

function signatureParam(value: unknown): string {
  if (typeof value !== 'string') throw invalidParams('expected a base58 signature string');
  const bytes = tryDecodeBase58(value);
  if (bytes === null || bytes.length !== 64) throw invalidParam('Invalid');
  return value;
}

function optionalSignature(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : signatureParam(value);
}

function slotParam(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidParams('expected a slot (u64)');
  return value;
}

function commitmentParam(value: unknown): Commitment {
  if (value === undefined || value === null) return 'finalized';
  // Deprecated aliases still accepted by the RPC.
  const aliases: Record<string, Commitment> = {
    processed: 'processed',
    confirmed: 'confirmed',
    finalized: 'finalized',
    recent: 'processed',
    single: 'confirmed',
    singleGossip: 'confirmed',
    root: 'finalized',
    max: 'finalized',
  };
  if (typeof value !== 'string' || !(value in aliases)) throw invalidParams(`unknown commitment: ${String(value)}`);
  return aliases[value];
}

function atLeastConfirmed(config: Config): Commitment {
  const commitment = commitmentParam(config.commitment);
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`');
  return commitment;
}

function contextSlot(ledger: Ledger, config: Config): number {
  const slot = ledger.visibleSlot(commitmentParam(config.commitment));
  checkMinContextSlot(slot, config);
  return slot;
}

function checkMinContextSlot(slot: number, config: Config): void {
  const min = config.minContextSlot;
  if (min === undefined || min === null) return;
  if (typeof min !== 'number' || !Number.isInteger(min)) throw invalidParams('minContextSlot must be a slot');
  if (min > slot) throw minContextSlotNotReached(slot);
}

function encodingParam(value: unknown, allowed: readonly string[], fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !allowed.includes(value))
    throw invalidParams(`unsupported encoding: ${String(value)}; expected one of ${allowed.join(', ')}`);
  return value;
}

function maxVersionParam(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (value !== 0) throw invalidParams(`unsupported maxSupportedTransactionVersion: ${String(value)}`);
  return 0;
}

type Filter = (data: Uint8Array) => boolean;

function filtersParam(value: unknown): Filter[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalidParams('filters must be an array');
  if (value.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`);
  return value.map((f: unknown): Filter => {
    if (typeof f !== 'object' || f === null) throw invalidParams('invalid filter');
    const filter = f as { dataSize?: unknown; memcmp?: { offset?: unknown; bytes?: unknown; encoding?: unknown } };
    if ('dataSize' in filter) {
      const size = filter.dataSize;
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw invalidParams('dataSize must be a non-negative integer');
      return (data) => data.length === size;
    }
    if ('memcmp' in filter && typeof filter.memcmp === 'object' && filter.memcmp !== null) {
      const { offset, bytes, encoding } = filter.memcmp;
      if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) throw invalidParams('memcmp.offset must be a non-negative integer');
      if (typeof bytes !== 'string') throw invalidParams('memcmp.bytes must be a string');
      let wanted: Uint8Array | null;
      if (encoding === undefined || encoding === null || encoding === 'base58') {
        if (bytes.length > 175) throw invalidParams('memcmp.bytes: base58 data too large');
        wanted = tryDecodeBase58(bytes);
      } else if (encoding === 'base64') {
        wanted = /^[A-Za-z0-9+/]*={0,2}$/.test(bytes) ? new Uint8Array(Buffer.from(bytes, 'base64')) : null;
      } else {
        throw invalidParams(`unsupported memcmp encoding: ${String(encoding)}`);
      }
      if (wanted === null) throw invalidParams('memcmp.bytes is not valid for its encoding');
      if (wanted.length > 128) throw invalidParams('memcmp.bytes: data too large; max 128 bytes');
      const w = wanted;
      return (data) => {
        if (offset + w.length > data.length) return false;
        for (let i = 0; i < w.length; i++) if (data[offset + i] !== w[i]) return false;
        return true;
      };
    }
    throw invalidParams('filter must be {dataSize} or {memcmp: {offset, bytes}}');
  });
}

function blockAt(ledger: Ledger, slot: number, commitment: Commitment): BlockRecord {
  if (slot > ledger.visibleSlot(commitment)) throw blockNotAvailable(slot);
  const first = ledger.clock.firstSlot;
  if (slot < first) throw longTermStorageSlotSkipped(slot);
  const block = ledger.block(slot);
  if (!block) throw slotSkipped(slot);
  return block;
}
