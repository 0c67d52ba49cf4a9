/**
 * Date and Timestamp builtins (daml-lf-2.rst, "Date functions", "Timestamp functions",
 * "Conversions functions"). Dates are days since 1970-01-01 and timestamps microseconds since
 * 1970-01-01T00:00:00Z, both limited to 0001-01-01 .. 9999-12-31 (23:59:59.999999 for
 * timestamps); a conversion out of that range throws `ArithmeticError`.
 */
import type { FunV } from '../../lf-value/runtime-value.js';
import { date, expect, fun, int64, text, timestamp } from '../../lf-value/runtime-value.js';
import { throwArithmeticError } from './errors.js';
import { daysFromCivil } from '../../../canton/calendar.js';
import { dateToText, timestampToText } from './format.js';

/** 0001-01-01 and 9999-12-31 in days since the epoch. */
export const MIN_DATE_DAYS = daysFromCivil(1, 1, 1);
export const MAX_DATE_DAYS = daysFromCivil(9999, 12, 31);
const MICROS_PER_DAY = 86_400_000_000n;
/** 0001-01-01T00:00:00.000000Z and 9999-12-31T23:59:59.999999Z in microseconds since the epoch. */
export const MIN_TIMESTAMP_MICROS = BigInt(MIN_DATE_DAYS) * MICROS_PER_DAY;
export const MAX_TIMESTAMP_MICROS = BigInt(MAX_DATE_DAYS + 1) * MICROS_PER_DAY - 1n;

export const dateToTextFn: FunV = fun(1, (args) => text(dateToText(expect(args[0]!, 'date').days)), 'DATE_TO_TEXT');

export const timestampToTextFn: FunV = fun(1, (args) => text(timestampToText(expect(args[0]!, 'timestamp').micros)), 'TIMESTAMP_TO_TEXT');

export const dateToUnixDays: FunV = fun(1, (args) => int64(BigInt(expect(args[0]!, 'date').days)), 'DATE_TO_UNIX_DAYS');

export const unixDaysToDate: FunV = fun(1, (args) => {
  const d = expect(args[0]!, 'int64').value;
  if (d < BigInt(MIN_DATE_DAYS) || d > BigInt(MAX_DATE_DAYS)) throwArithmeticError('UNIX_DAYS_TO_DATE', args);
  return date(Number(d));
}, 'UNIX_DAYS_TO_DATE');

export const timestampToUnixMicroseconds: FunV = fun(1, (args) => int64(expect(args[0]!, 'timestamp').micros), 'TIMESTAMP_TO_UNIX_MICROSECONDS');

export const unixMicrosecondsToTimestamp: FunV = fun(1, (args) => {
  const us = expect(args[0]!, 'int64').value;
  if (us < MIN_TIMESTAMP_MICROS || us > MAX_TIMESTAMP_MICROS) throwArithmeticError('UNIX_MICROSECONDS_TO_TIMESTAMP', args);
  return timestamp(us);
}, 'UNIX_MICROSECONDS_TO_TIMESTAMP');
