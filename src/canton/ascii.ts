/** Character codes for the hand-written scanners of Canton's text forms (instants, Decimals). */
export const ZERO = 0x30;
export const PLUS = 0x2b;
export const DASH = 0x2d;
export const DOT = 0x2e;

export function isDigit(c: number): boolean {
  return c >= ZERO && c <= ZERO + 9;
}
