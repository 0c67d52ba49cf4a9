/**
 * The interning tables of a Daml-LF 2 package being built by hand (`interned_strings` and
 * `interned_dotted_names` of daml_lf2.proto): each string or dotted name gets its index on first
 * use. Shared by the test DAR builders (dar-builder.ts, lf2-package-builder.ts).
 */
export class Lf2InterningTables {
  protected readonly strings: string[] = [];
  private readonly stringIdx = new Map<string, number>();
  protected readonly dnames: number[][] = [];
  private readonly dnameIdx = new Map<string, number>();

  str(s: string): number {
    let i = this.stringIdx.get(s);
    if (i === undefined) {
      i = this.strings.push(s) - 1;
      this.stringIdx.set(s, i);
    }
    return i;
  }

  /** A dotted name (`Splice.Api.Token`): its segments interned as strings. */
  dname(s: string): number {
    let i = this.dnameIdx.get(s);
    if (i === undefined) {
      i = this.dnames.push(s.split('.').map((seg) => this.str(seg))) - 1;
      this.dnameIdx.set(s, i);
    }
    return i;
  }
}
