/**
 * Why Hadron bytes could not be decoded. Decoders throw only this, so callers can turn a bad
 * instruction or account into a recorded problem instead of losing a batch.
 */
export type HadronDecodeErrorCode = 'empty_data' | 'truncated' | 'trailing_bytes' | 'unknown_tag' | 'invalid_side' | 'invalid_size' | 'invalid_base58';

export class HadronDecodeError extends Error {
  override readonly name = 'HadronDecodeError';

  constructor(
    readonly code: HadronDecodeErrorCode,
    message: string,
    /** For `truncated` / `trailing_bytes`: the length the instruction takes (exact, or at least). */
    readonly expectedLength: number | null = null,
  ) {
    super(message);
  }
}
