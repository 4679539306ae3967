import { PPM_ONE, type SplitWeight } from '../valuation/fee-split';
import { readPubkey, viewOf, writePubkey, writeU32, writeU8 } from './byte-io';
import { HadronDecodeError } from './decode-error';
import { encodeFeeConfigAccount, feeConfigVersionOf, type FeeConfigAccount } from './fee-config-account.layout';
import { ZERO_PUBKEY } from './program-ids';

/*
 * ASSUMED LAYOUT — the only place it lives. The v2 fee config (686 bytes) can name several fee
 * recipients with ppm weights, but its tail layout is unknown. We assume, after the 72-byte v1
 * prefix:
 *   @72        count u8
 *   @73 + 36·i recipient pubkey (32) | weight_ppm u32 LE (4)      for i < count  (so count ≤ 17)
 * count = 0 (and any v1 fee config) means the default: the single `fee_recipient` gets everything.
 * Correcting the layout touches decodeFeeSplit and encodeFeeSplit only.
 *
 * Because it is an assumption, readers go through readFeeSplit: a real tail that holds something
 * else reads as count > 17, or as random recipients with weights far past 1,000,000 ppm. Such a
 * split is refused (with the reason), never handed on as if it were one.
 */
const COUNT_AT = 72;
const ENTRIES_AT = 73;
const ENTRY_LEN = 36;
/** Entries that fit a 686-byte account under the assumed layout. */
export const MAX_SPLIT_RECIPIENTS = Math.floor((686 - ENTRIES_AT) / ENTRY_LEN);

/** The recipients and weights of a fee config; [] for the default single recipient. */
export function decodeFeeSplit(data: Uint8Array): SplitWeight[] {
  if (feeConfigVersionOf(data) === 'v1') return [];
  const count = data[COUNT_AT];
  if (ENTRIES_AT + count * ENTRY_LEN > data.length)
    throw new HadronDecodeError('truncated', `fee split of ${count} recipients does not fit ${data.length} bytes`);
  const view = viewOf(data);
  const split: SplitWeight[] = [];
  for (let i = 0, at = ENTRIES_AT; i < count; i++, at += ENTRY_LEN) {
    split.push({ recipient: readPubkey(data, at), ppm: view.getUint32(at + 32, true) });
  }
  return split;
}

export type FeeSplitReading = { split: SplitWeight[]; problem: null } | { split: null; problem: string };

/**
 * The split of a fee config under the assumed layout, or null and why when the bytes do not read
 * as a plausible split: more than 17 entries, an all-zero recipient, a recipient named twice, or
 * a weight or a sum over 1,000,000 ppm.
 */
export function readFeeSplit(data: Uint8Array): FeeSplitReading {
  let split: SplitWeight[];
  try {
    split = decodeFeeSplit(data);
  } catch (e) {
    if (e instanceof HadronDecodeError) return { split: null, problem: e.message };
    throw e;
  }
  const problem = implausibility(split);
  return problem === null ? { split, problem: null } : { split: null, problem };
}

function implausibility(split: readonly SplitWeight[]): string | null {
  if (split.length > MAX_SPLIT_RECIPIENTS) return `${split.length} fee recipients, at most ${MAX_SPLIT_RECIPIENTS} fit`;
  const seen = new Set<string>();
  let total = 0;
  for (const { recipient, ppm } of split) {
    if (recipient === ZERO_PUBKEY) return 'a fee recipient is the all-zero key'; // an unset slot, never a recipient
    if (seen.has(recipient)) return `fee recipient ${recipient} is named twice`;
    if (ppm > PPM_ONE) return `a fee weight of ${ppm} ppm is over ${PPM_ONE}`;
    seen.add(recipient);
    total += ppm;
  }
  return total > PPM_ONE ? `fee weights add up to ${total} ppm, over ${PPM_ONE}` : null;
}

/** A v2 fee config account carrying `split` (for the simulated cluster). */
export function encodeFeeSplit(fee: FeeConfigAccount, split: readonly SplitWeight[]): Uint8Array {
  if (fee.version !== 'v2') throw new RangeError('only a v2 fee config carries a split');
  const data = encodeFeeConfigAccount(fee);
  if (ENTRIES_AT + split.length * ENTRY_LEN > data.length) throw new RangeError(`a fee split of ${split.length} recipients does not fit`);
  writeU8(data, COUNT_AT, split.length);
  const view = viewOf(data);
  split.forEach(({ recipient, ppm }, i) => {
    writePubkey(data, ENTRIES_AT + i * ENTRY_LEN, recipient);
    writeU32(view, ENTRIES_AT + i * ENTRY_LEN + 32, ppm);
  });
  return data;
}
