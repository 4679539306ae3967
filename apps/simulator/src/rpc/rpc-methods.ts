import { encodeBase58 } from '@hadron/domain';
import type { AccountState, BlockRecord, Commitment, Ledger, StoredTx } from '../ledger/ledger';
import { uiTokenAmount } from '../ledger/transaction-executor';
import type { SimulatedMarket } from '../market/market-generator';
import { isTokenAccount, rentExempt, tokenAccountAmount, tokenAccountMint } from '../spl/spl-accounts';
import type { FaultInjector } from './faults';
import { toJsonParsed } from './json-parsed';
import { parsedAccount } from './json-parsed-account';
import {
  blockNotAvailable,
  invalidParam,
  invalidParams,
  longTermStorageSlotSkipped,
  METHOD_NOT_FOUND,
  RpcError,
  slotSkipped,
  unsupportedTransactionVersion,
} from './rpc-errors';
import {
  atLeastConfirmed,
  checkMinContextSlot,
  commitmentParam,
  configParam,
  contextSlot,
  encodingParam,
  filtersParam,
  maxVersionParam,
  optionalSignature,
  pubkeyParam,
  signatureParam,
  slotParam,
  type Config,
} from './rpc-params';
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

function blockAt(ledger: Ledger, slot: number, commitment: Commitment): BlockRecord {
  if (slot > ledger.visibleSlot(commitment)) throw blockNotAvailable(slot);
  const first = ledger.clock.firstSlot;
  if (slot < first) throw longTermStorageSlotSkipped(slot);
  const block = ledger.block(slot);
  if (!block) throw slotSkipped(slot);
  return block;
}
