/**
 * Compilation of Daml-LF 2 update expressions (daml-lf-2.rst, "Update interpretation").
 *
 * An update expression evaluates to an `UpdateV` whose `run(ledger)` performs it. What is
 * evaluated when follows the spec's update evaluation contexts: the arguments of `pure`,
 * `create`, `fetch`, `exercise`, `ledger_time_lt` and the first binding of a block are evaluated
 * when the update expression is evaluated; the rest of a block, `embed_expr`, `create_interface`'s
 * argument and the `try` body and handler only when the update runs. Code that runs at run time
 * gets a fresh frame per run (`compileDelayed`), since an update value may be run several times.
 *
 * Limits: contract keys (2.dev: `fetch_by_key`, `query_n_by_key`, `exercise_by_key`) and the
 * guarded `exercise_interface` (2.dev) are unsupported-feature failures when run.
 */
import type { Update } from './ast.js';
import { asRecord, bind, childScope, internal, type Code, type ExpressionCompiler, type Frame, type Scope } from './compile-scope.js';
import { DamlFailure, DamlThrow, type LedgerPort } from './runtime.js';
import { contractId, type UpdateV, type Value } from '../lf-value/runtime-value.js';

function runUpdate(u: Value, ledger: LedgerPort): Value {
  if (u.tag !== 'update') internal(`running a ${u.tag} value as an update`);
  return u.run(ledger);
}

function cidOf(v: Value): string {
  if (v.tag !== 'contractId') internal(`expected a contract id, got ${v.tag}`);
  return v.value;
}

function upd(run: (ledger: LedgerPort) => Value): UpdateV {
  return { tag: 'update', run };
}

function unsupported(feature: string): never {
  throw new DamlFailure({ kind: 'unsupported', feature });
}

export function compileUpdate(c: ExpressionCompiler, u: Update, scope: Scope): Code {
  switch (u.tag) {
    case 'pure': {
      const e = c.compile(u.expr, scope);
      return (env) => {
        const v = e(env);
        return upd(() => v);
      };
    }
    case 'block': {
      const [first, ...rest] = u.bindings;
      if (first === undefined) return c.compile(u.body, scope);
      const firstCode = c.compile(first.bound, scope);
      // The remaining bindings and the body run in the block's own frame, one per run.
      let inner = childScope(scope);
      const firstBind = bind(inner, first.name);
      inner = firstBind.scope;
      const steps: Array<{ code: Code; slot: number }> = [];
      for (const b of rest) {
        const code = c.compile(b.bound, inner);
        const r = bind(inner, b.name);
        inner = r.scope;
        steps.push({ code, slot: r.slot });
      }
      const body = c.compile(u.body, inner);
      const frame = inner.frame;
      const firstSlot = firstBind.slot;
      return (env) => {
        const firstUpd = firstCode(env);
        return upd((ledger) => {
          const f: Frame = { up: env, s: new Array<Value>(frame.nslots) };
          f.s[firstSlot] = runUpdate(firstUpd, ledger);
          for (const step of steps) f.s[step.slot] = runUpdate(step.code(f), ledger);
          return runUpdate(body(f), ledger);
        });
      };
    }
    case 'create': {
      const arg = c.compile(u.expr, scope);
      const template = u.template;
      return (env) => {
        const a = asRecord(arg(env), 'create');
        return upd((ledger) => contractId(ledger.create(template, a)));
      };
    }
    case 'createInterface': {
      const arg = c.compileDelayed(u.expr, scope);
      return (env) =>
        upd((ledger) => {
          const a = asRecord(arg(env), 'create_interface');
          return contractId(ledger.create(a.tycon, a));
        });
    }
    case 'exercise': {
      const cid = c.compile(u.cid, scope);
      const arg = c.compile(u.arg, scope);
      const { template, choice } = u;
      return (env) => {
        const cv = cidOf(cid(env));
        const av = arg(env);
        return upd((ledger) => ledger.exerciseTemplate(template, cv, choice, av));
      };
    }
    case 'exerciseInterface': {
      const cid = c.compile(u.cid, scope);
      const arg = c.compile(u.arg, scope);
      const guard = u.guard === undefined ? undefined : c.compile(u.guard, scope);
      const { iface, choice } = u;
      return (env) => {
        const cv = cidOf(cid(env));
        const av = arg(env);
        if (guard !== undefined) guard(env);
        return upd((ledger) => {
          if (guard !== undefined) unsupported('exercise_interface with a guard (Daml-LF 2.dev)');
          return ledger.exerciseInterface(iface, cv, choice, av);
        });
      };
    }
    case 'exerciseByKey': {
      const key = c.compile(u.key, scope);
      const arg = c.compile(u.arg, scope);
      return (env) => {
        key(env);
        arg(env);
        return upd(() => unsupported('exercise_by_key (contract keys, Daml-LF 2.dev)'));
      };
    }
    case 'fetch': {
      const cid = c.compile(u.cid, scope);
      const template = u.template;
      return (env) => {
        const cv = cidOf(cid(env));
        return upd((ledger) => ledger.fetchTemplate(template, cv));
      };
    }
    case 'fetchInterface': {
      const cid = c.compile(u.cid, scope);
      const iface = u.iface;
      return (env) => {
        const cv = cidOf(cid(env));
        return upd((ledger) => ledger.fetchInterface(iface, cv));
      };
    }
    case 'getTime': {
      const v = upd((ledger) => ({ tag: 'timestamp', micros: ledger.nowMicros }));
      return () => v;
    }
    case 'ledgerTimeLt': {
      const t = c.compile(u.expr, scope);
      return (env) => {
        const tv = t(env);
        if (tv.tag !== 'timestamp') internal(`ledger_time_lt of a ${tv.tag} value`);
        return upd((ledger) => ({ tag: 'bool', value: ledger.nowMicros < tv.micros }));
      };
    }
    case 'embedExpr': {
      const e = c.compileDelayed(u.expr, scope);
      return (env) => upd((ledger) => runUpdate(e(env), ledger));
    }
    case 'tryCatch': {
      const body = c.compileDelayed(u.tryExpr, scope);
      const handlerScope = childScope(scope);
      const { scope: hs, slot } = bind(handlerScope, u.binder);
      const handler = c.compile(u.catchExpr, hs);
      const frame = handlerScope.frame;
      const rt = c.rt;
      return (env) =>
        upd((ledger) => {
          try {
            return ledger.rollbackScope(() => runUpdate(body(env), ledger));
          } catch (err) {
            // Only Daml exceptions are catchable; failures (and ledger errors) go through.
            if (!(err instanceof DamlThrow)) throw err;
            rt.rememberMessage(err.exception, err.exceptionMessage);
            const f: Frame = { up: env, s: new Array<Value>(frame.nslots) };
            f.s[slot] = err.exception;
            const chosen = handler(f);
            if (chosen.tag !== 'optional') internal(`a try handler returned a ${chosen.tag} value`);
            // `None`: the handler declines, the exception goes on.
            if (chosen.value === undefined) throw err;
            return runUpdate(chosen.value, ledger);
          }
        });
    }
    case 'fetchByKey':
      return () => upd(() => unsupported('fetch_by_key (contract keys, Daml-LF 2.dev)'));
    case 'queryNByKey':
      return () => upd(() => unsupported('query_n_by_key (contract keys, Daml-LF 2.dev)'));
  }
}
