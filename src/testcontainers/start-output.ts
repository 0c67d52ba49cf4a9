/**
 * Reads what `token-registry emulate` prints once it is ready (src/main.ts): a header line, then
 * tables separated by blank lines, columns padded with two or more spaces: the services, the seeded
 * parties (`party user role`) and the instruments (`instrument token symbol holdings`). Pino's log
 * lines (JSON objects) may be interleaved in the container's output and are skipped.
 */

/** The first line `emulate` prints when every service listens. */
export const EMULATE_READY_LINE = 'token-registry emulator ready';

export interface SeededParty {
  /** The full party id, `hint::1220…`. */
  party: string;
  /** The hint the party was allocated with (the part before `::`). */
  hint: string;
  /** Its ledger user (CanActAs the party, primary party). */
  userId: string;
  role: string;
}

export interface SeededInstrument {
  id: string;
  /** `splice-test-token-v1` or `splice-test-token-v2`. */
  token: string;
  symbol: string;
  /** Holdings minted at start: owner hint and amount. */
  holdings: Array<{ owner: string; amount: string }>;
}

export interface StartOutput {
  participantId: string;
  /** From the process's start to every service listening, by its own clock (absent in output of builds before it was printed). */
  readyInMs?: number;
  auth: string;
  parties: SeededParty[];
  instruments: SeededInstrument[];
}

/** Splits one table into rows of cells; undefined unless the header is exactly `header`. */
function table(lines: string[], header: string[]): string[][] | undefined {
  const [head, ...rows] = lines.map((l) => l.trim().split(/ {2,}/));
  if (!head || head.length !== header.length || head.some((h, i) => h !== header[i])) return undefined;
  return rows;
}

/**
 * Parses the start output; undefined while it is incomplete (no ready line yet, or the output
 * does not end with a complete line). Throws when a table is malformed.
 */
export function parseStartOutput(text: string): StartOutput | undefined {
  const start = text.indexOf(EMULATE_READY_LINE);
  if (start < 0 || !text.endsWith('\n')) return undefined;
  const lines = text
    .slice(start)
    .split('\n')
    .filter((l) => !l.startsWith('{'));
  const header = /^token-registry emulator ready(?: in (\d+) ms)? \(auth: ([^,]+), participants?: ([^,)]+)(?:, [^)]+)?\)$/.exec(lines[0] ?? '');
  if (!header) throw new Error(`unexpected first line of the emulator's output: ${lines[0]}`);
  // blocks of non-blank lines after the header
  const blocks: string[][] = [];
  let current: string[] = [];
  for (const l of lines.slice(1)) {
    if (l.trim() === '') {
      if (current.length > 0) blocks.push(current);
      current = [];
    } else current.push(l);
  }
  if (current.length > 0) blocks.push(current);
  let parties: SeededParty[] = [];
  let instruments: SeededInstrument[] = [];
  for (const b of blocks) {
    const p = table(b, ['party', 'user', 'role']);
    if (p) {
      parties = p.map(([party, userId, role = '']) => {
        if (!party?.includes('::') || !userId) throw new Error(`malformed party row in the emulator's output: ${JSON.stringify([party, userId, role])}`);
        return { party, hint: party.slice(0, party.indexOf('::')), userId, role };
      });
      continue;
    }
    const i = table(b, ['instrument', 'token', 'symbol', 'holdings']);
    if (i) {
      instruments = i.map(([id, token, symbol, holdings = '']) => {
        if (!id || !token || !symbol) throw new Error(`malformed instrument row in the emulator's output: ${JSON.stringify([id, token, symbol])}`);
        return {
          id,
          token,
          symbol,
          holdings: holdings
            .split(', ')
            .filter((h) => h !== '')
            .map((h) => {
              const at = h.lastIndexOf(' ');
              return { owner: h.slice(0, at), amount: h.slice(at + 1) };
            }),
        };
      });
    }
  }
  return { auth: header[2]!, participantId: header[3]!, readyInMs: header[1] === undefined ? undefined : Number(header[1]), parties, instruments };
}
