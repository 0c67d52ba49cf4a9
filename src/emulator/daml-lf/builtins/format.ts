/**
 * Text renderings of LF literals (daml-lf-2.rst "Literals" and the *_TO_TEXT builtins), and the
 * calendar arithmetic behind them. Pure functions with no error paths of their own.
 *
 *  - Numeric: the shortest exact decimal, at least one fractional digit ("1.5", "100.0", "-0.25"):
 *    what `NUMERIC_TO_TEXT` returns and how Speedy prints numerics in error messages.
 *  - Date: `YYYY-MM-DD`.
 *  - Timestamp: ISO 8601 in UTC, `YYYY-MM-DDThh:mm:ss[.fff|.ffffff]Z`: the fraction is left out when
 *    zero, else printed with 3 digits when it is whole milliseconds and 6 otherwise (Java's
 *    `ISO_INSTANT`, which Speedy uses; daml-lf-2.rst only fixes "at least as many digits as necessary").
 */
import { civilFromDays } from '../../../canton/calendar.js';

/** `n` as a decimal with `scale` fractional digits, trailing fractional zeros dropped, at least one kept. */
export function numericToText(n: { scale: number; unscaled: bigint }): string {
  const negative = n.unscaled < 0n;
  const digits = (negative ? -n.unscaled : n.unscaled).toString().padStart(n.scale + 1, '0');
  const intPart = digits.slice(0, digits.length - n.scale);
  const fracPart = digits.slice(digits.length - n.scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${intPart}.${fracPart === '' ? '0' : fracPart}`;
}

const pad = (n: number | bigint, width: number): string => n.toString().padStart(width, '0');


export function dateToText(days: number): string {
  const { year, month, day } = civilFromDays(days);
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

const MICROS_PER_DAY = 86_400_000_000n;

export function timestampToText(micros: bigint): string {
  let days = micros / MICROS_PER_DAY;
  let rest = micros % MICROS_PER_DAY;
  if (rest < 0n) {
    rest += MICROS_PER_DAY;
    days -= 1n;
  }
  const fraction = rest % 1_000_000n;
  const seconds = rest / 1_000_000n;
  const hh = seconds / 3600n;
  const mm = (seconds / 60n) % 60n;
  const ss = seconds % 60n;
  let frac = '';
  if (fraction !== 0n) frac = fraction % 1000n === 0n ? `.${pad(fraction / 1000n, 3)}` : `.${pad(fraction, 6)}`;
  return `${dateToText(Number(days))}T${pad(hh, 2)}:${pad(mm, 2)}:${pad(ss, 2)}${frac}Z`;
}
