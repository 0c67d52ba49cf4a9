/** Character codes for the hand-written scanners of Canton's text forms (instants, Decimals). */
export const ZERO = 0x30;

export function isDigit(c: number): boolean {
  return c >= ZERO && c <= ZERO + 9;
}
