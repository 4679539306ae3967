import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { getMetadataStorage, Validate, ValidatorConstraint, type ValidationArguments, type ValidatorConstraintInterface } from 'class-validator';
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

type QueryDto = abstract new () => object;

/** Each request DTO's parameters and their parsers, as declared by @QueryParam (for parseQueryFast). */
const declared = new Map<QueryDto, Map<string, (raw: unknown) => unknown>>();

/** Declares a query parameter: parsed by `parse` when present, the class field's initializer otherwise. */
export function QueryParam(parse: (raw: unknown) => unknown): PropertyDecorator {
  const register: PropertyDecorator = (target, key) => {
    const dto = target.constructor as QueryDto;
    const params = declared.get(dto) ?? new Map<string, (raw: unknown) => unknown>();
    params.set(String(key), parse);
    declared.set(dto, params);
  };
  return applyDecorators(
    register,
    Transform(({ value }) => (value === undefined ? undefined : parse(value)), { toClassOnly: true }),
    Validate(QueryParamConstraint),
  );
}

/** Per DTO class: its parameters' parsers when @QueryParam is its only rule (else null: not for the fast path). */
const fastPlans = new Map<QueryDto, ReadonlyMap<string, (raw: unknown) => unknown> | null>();

function fastPlan(dto: QueryDto): ReadonlyMap<string, (raw: unknown) => unknown> | null {
  let plan = fastPlans.get(dto);
  if (plan !== undefined) return plan;
  const params = declared.get(dto);
  const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
  const onlyQueryParams = rules.every((m) => m.constraintCls === QueryParamConstraint && params?.has(m.propertyName));
  plan = params !== undefined && onlyQueryParams && rules.length === params.size ? params : null;
  fastPlans.set(dto, plan);
  return plan;
}

/**
 * The ValidationPipe's result for a query every parameter of which is declared and valid, without
 * class-transformer and class-validator: `new dto()` (the defaults) with each given parameter set to
 * its parser's value, which is what plainToInstance builds and validation then accepts. Undefined
 * for anything else (an unknown, repeated or invalid parameter, or a DTO with other rules): the
 * ValidationPipe then runs and writes the error as always. validation.pipe.spec.ts checks both
 * paths give the same for many generated queries.
 */
export function parseQueryFast(dto: QueryDto, query: object): object | undefined {
  const plan = fastPlan(dto);
  if (plan === null) return undefined;
  const out = new (dto as new () => Record<string, unknown>)();
  for (const key in query) {
    if (!Object.prototype.hasOwnProperty.call(query, key)) return undefined;
    const parse = plan.get(key);
    if (parse === undefined) return undefined;
    const raw = (query as Record<string, unknown>)[key];
    if (raw === undefined) return undefined;
    const value = parse(raw);
    if (value instanceof InvalidParam) return undefined;
    out[key] = value;
  }
  return out;
}
