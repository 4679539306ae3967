/**
 * The test boundary between snake_case outside formats (the golden vectors' JSON, the simulator's
 * ground truth) and the decoder's camelCase facts: the same values, keys renamed. Test-only.
 */

/** `vault_x_after` → `vaultXAfter`, `midprice_q32` → `midpriceQ32`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A value with every object key, at any depth, in camelCase. */
export type CamelCased<T> = T extends readonly (infer U)[]
  ? CamelCased<U>[]
  : T extends object
    ? { [K in keyof T as K extends string ? CamelCase<K> : K]: CamelCased<T[K]> }
    : T;

export function camelCase<S extends string>(key: S): CamelCase<S> {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) as CamelCase<S>;
}

/** A deep copy of plain JSON data with its object keys in camelCase; values are untouched. */
export function camelCased<T>(value: T): CamelCased<T> {
  if (Array.isArray(value)) return value.map((v: unknown) => camelCased(v)) as CamelCased<T>;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelCase(k), camelCased(v)])) as CamelCased<T>;
  }
  return value as CamelCased<T>;
}
