/**
 * Ledger-side automation of the emulated network: the work that real Splice apps do in the
 * background (the SV automation that opens and advances mining rounds, for example), run
 * *lazily and deterministically* instead of on timers.
 *
 * How it works:
 *  - an automation is a named function `(engine) => void` registered on `engine.automations`;
 *  - `engine.automations.run()` runs every registered automation once, in registration order;
 *  - the command service calls it before interpreting each submission, so a command always sees
 *    the ledger as the background automation would have left it at the current (injectable)
 *    clock time; read paths that want the same view (e.g. emulated scan) call it before reading;
 *  - an automation changes the ledger only through `engine.commands.submit(...)` (so its
 *    transactions appear in the update stream like any other); submissions made while the
 *    automations run do not re-enter them (a guard), and a failing automation never fails the
 *    caller's command: its error is kept in `lastErrors` for tests and diagnostics.
 * With a ManualClock nothing happens until the clock moves and someone submits or reads, so two
 * engines fed the same commands and clock moves produce the same ledger.
 */
/**
 * An automation, run with the participant it is registered on. Generic in the participant's type
 * (engine.ts's `LedgerEngine`) so this module does not depend on the engine that owns it.
 */
export type Automation<E> = (engine: E) => void;

export class EngineAutomations<E> {
  private readonly list: Array<{ name: string; run: Automation<E> }> = [];
  private running = false;
  /** The last error of each automation that failed on its latest run (cleared on success). */
  readonly lastErrors = new Map<string, unknown>();

  constructor(private readonly engine: E) {}

  /** Registers an automation; a second registration under the same name replaces the first. */
  register(name: string, run: Automation<E>): void {
    const i = this.list.findIndex((a) => a.name === name);
    if (i >= 0) this.list[i] = { name, run };
    else this.list.push({ name, run });
  }

  unregister(name: string): void {
    const i = this.list.findIndex((a) => a.name === name);
    if (i >= 0) this.list.splice(i, 1);
    this.lastErrors.delete(name);
  }

  names(): string[] {
    return this.list.map((a) => a.name);
  }

  /** Runs every automation once (no-op when called from inside an automation). */
  run(): void {
    if (this.running || this.list.length === 0) return;
    this.running = true;
    try {
      for (const a of this.list) {
        try {
          a.run(this.engine);
          this.lastErrors.delete(a.name);
        } catch (e) {
          this.lastErrors.set(a.name, e);
        }
      }
    } finally {
      this.running = false;
    }
  }
}
