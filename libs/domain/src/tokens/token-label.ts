/**
 * What a token is called where the chain does not say: the first four characters of its mint.
 * The one fallback for a token without metadata, used for its `symbol`, its `name` and the pool
 * name (`read.pools.name` computes the same with `left(mint, 4)`; a test holds the two together).
 */
export const SHORT_MINT_LENGTH = 4;

export function shortMint(mint: string): string {
  return mint.slice(0, SHORT_MINT_LENGTH);
}

/** A token's symbol as shown: its own, else the short mint. */
export function displaySymbol(mint: string, symbol: string | null | undefined): string {
  return symbol ? symbol : shortMint(mint);
}

/** A token's name as shown: its own, else its symbol, else the short mint. */
export function displayName(mint: string, name: string | null | undefined, symbol: string | null | undefined): string {
  return name ? name : displaySymbol(mint, symbol);
}

/** "X/Y" from the symbols as shown. */
export function poolName(x: { mint: string; symbol: string | null | undefined }, y: { mint: string; symbol: string | null | undefined }): string {
  return `${displaySymbol(x.mint, x.symbol)}/${displaySymbol(y.mint, y.symbol)}`;
}
