/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4, as documented in
 * prometheus/docs "Exposition formats"), for tests that scrape `/metrics`. It throws on anything a
 * Prometheus server would reject or that the format forbids: bad metric or label names, bad
 * escapes, unparsable values, a TYPE after the family's samples or given twice, samples of a
 * family interleaved with another one, a duplicate series, and histograms whose buckets are not
 * cumulative or lack `+Inf` equal to `_count`.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seriesSeen = new Set<string>();
  let current: Family | undefined;
  const closed = new Set<string>();
  const typeSeen = new Set<string>();
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const lines = text.split('\n');
  lines.pop();
  lines.forEach((line, i) => {
    const at = `line ${i + 1}`;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return; // a plain comment
      const [, kind, name, rest] = m;
      if (!METRIC_NAME.test(name!)) throw new Error(`${at}: bad metric name ${name}`);
      const f = family(name!);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest!)) throw new Error(`${at}: unknown type ${rest}`);
        if (f.samples.length > 0) throw new Error(`${at}: TYPE of ${name} after its samples`);
        if (typeSeen.has(name!)) throw new Error(`${at}: second TYPE for ${name}`);
        typeSeen.add(name!);
        f.type = rest as Family['type'];
      } else {
        if (f.help !== undefined) throw new Error(`${at}: second HELP for ${name}`);
        f.help = unescapeHelp(rest!, at);
      }
      return;
    }
    const s = parseSample(line, at);
    const f = familyOfSample(s.name);
    const key = `${s.name}{${Object.entries(s.labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (seriesSeen.has(key)) throw new Error(`${at}: duplicate series ${key}`);
    seriesSeen.add(key);
    f.samples.push(s);
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;

  function family(name: string): Family {
    let f = families.get(name);
    if (!f) {
      if (current && current.name !== name) closed.add(current.name);
      f = { name, type: 'untyped', samples: [] };
      families.set(name, f);
    } else if (closed.has(name)) {
      throw new Error(`metadata of ${name} is not contiguous with its family`);
    }
    current = f;
    return f;
  }

  function familyOfSample(sampleName: string): Family {
    for (const suffix of ['', '_bucket', '_count', '_sum', '_total', '_created']) {
      if (suffix && !sampleName.endsWith(suffix)) continue;
      const base = suffix ? sampleName.slice(0, -suffix.length) : sampleName;
      const f = families.get(base);
      if (!f) continue;
      if (suffix === '_bucket' && f.type !== 'histogram') continue;
      if (closed.has(base) || current !== f) throw new Error(`samples of ${base} are not contiguous`);
      return f;
    }
    return family(sampleName);
  }
}
function parseSample(line: string, at: string): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
  if (!m) throw new Error(`${at}: not a sample line: ${line}`);
  const [, name, labelText, valueText] = m;
  return { name: name!, labels: labelText ? parseLabels(labelText, at) : {}, value: parseValue(valueText!, at) };
}

function parseLabels(text: string, at: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 1;
  while (i < text.length - 1) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`${at}: label without value in ${text}`);
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new Error(`${at}: bad label name "${name}"`);
    if (name in labels) throw new Error(`${at}: label ${name} given twice`);
    if (text[eq + 1] !== '"') throw new Error(`${at}: label value of ${name} is not quoted`);
    let v = '';
    let j = eq + 2;
    for (; j < text.length; j++) {
      const c = text[j]!;
      if (c === '\\') {
        const n = text[++j];
        if (n === 'n') v += '\n';
        else if (n === '\\' || n === '"') v += n;
        else throw new Error(`${at}: bad escape \\${n} in label ${name}`);
      } else if (c === '"') break;
      else if (c === '\n') throw new Error(`${at}: raw line feed in label ${name}`);
      else v += c;
    }
    if (j >= text.length) throw new Error(`${at}: unterminated label value of ${name}`);
    labels[name] = v;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (i !== text.length - 1) throw new Error(`${at}: expected , or } after label ${name}`);
  }
  return labels;
}

function parseValue(text: string, at: string): number {
  // Prometheus reads values with Go's strconv.ParseFloat: Inf and NaN in any letter case.
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity;
  if (/^-inf(inity)?$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${at}: bad value ${text}`);
  return Number(text);
}

function unescapeHelp(text: string, at: string): string {
  return text.replace(/\\(.?)/g, (_m, c: string) => {
    if (c === 'n') return '\n';
    if (c === '\\') return '\\';
    throw new Error(`${at}: bad escape in HELP`);
  });
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const g = groups.get(key) ?? { buckets: [] };
    groups.set(key, g);
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}: bucket without le`);
      g.buckets.push([parseValue(le, f.name), s.value]);
    } else if (s.name === `${f.name}_count`) g.count = s.value;
  }
  for (const [key, g] of groups) {
    const sorted = [...g.buckets].sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${f.name}${key}: buckets are not cumulative`);
    }
    const inf = sorted.at(-1);
    if (!inf || inf[0] !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    if (g.count !== inf[1]) throw new Error(`${f.name}${key}: +Inf bucket ${inf[1]} differs from _count ${g.count}`);
  }
}

/** The value of one series, or undefined. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
    }
  }
  return undefined;
}
