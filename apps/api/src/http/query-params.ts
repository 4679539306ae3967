import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { Validate, ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';
import { UNIX_SECONDS_MAX } from '@hadron/contracts/api';

/**
 * Query parameters are parsed by small pure functions: a value, or an InvalidParam carrying the
 * exact message the client gets. One decorator (`@QueryParam`) runs the parser during the
 * ValidationPipe's transform step and one constraint reports its message, so every parameter has
 * exactly one rule and one message (class-validator would otherwise report several, in no
 * guaranteed order).
 */
export class InvalidParam {
  constructor(readonly message: string) {}
}
export type Parsed<T> = T | InvalidParam;

/** A repeated parameter (`?a=1&a=2`) arrives as an array: it is never a valid single value. */
function single(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function parseChoice<T extends string>(v: unknown, allowed: readonly T[], message: string): Parsed<T> {
  const s = single(v);
  return s !== undefined && (allowed as readonly string[]).includes(s) ? (s as T) : new InvalidParam(message);
}

/** A plain decimal integer (digits only: no sign, no fraction, no exponent, no spaces) in [min, max]. */
export function parseInteger(v: unknown, min: number, max: number, message: string): Parsed<number> {
  const s = single(v);
  if (s === undefined || !/^[0-9]{1,16}$/.test(s)) return new InvalidParam(message);
  const n = Number(s);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : new InvalidParam(message);
}

/** Unix seconds: a plain decimal integer 0..9,999,999,999 (see UNIX_SECONDS_MAX). */
export function parseUnixSeconds(v: unknown, message: string): Parsed<number> {
  return parseInteger(v, 0, UNIX_SECONDS_MAX, message);
}

/** A free-text filter: one value, trimmed; empty means "no filter". */
export function parseText(v: unknown, name: string): Parsed<string | undefined> {
  const s = single(v);
  if (s === undefined) return new InvalidParam(`${name} must be given at most once`);
  const t = s.trim();
  return t === '' ? undefined : t;
}

@ValidatorConstraint({ name: 'queryParam' })
class QueryParamConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return !(value instanceof InvalidParam);
  }

  defaultMessage(args: ValidationArguments): string {
    return args.value instanceof InvalidParam ? args.value.message : `${args.property} is invalid`;
  }
}

/** Declares a query parameter: parsed by `parse` when present, the class field's initializer otherwise. */
export function QueryParam(parse: (raw: unknown) => unknown): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }) => (value === undefined ? undefined : parse(value)), { toClassOnly: true }),
    Validate(QueryParamConstraint),
  );
}
