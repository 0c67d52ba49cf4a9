/**
 * `META-INF/MANIFEST.MF` of a DAR (Canton `DarManifestWriter.scala`), read like `java.util.jar.Manifest`:
 * the main section runs to the first blank line; lines are `Key: value`; a line starting with one
 * space continues the previous one (damlc folds lines at 72 bytes); keys are case-insensitive.
 * Canton's `DarManifestReader` then requires `Main-Dalf`, `Dalfs` and `Format: daml-lf`.
 */

export interface DarManifest {
  /** Path of the main package's dalf inside the zip. */
  mainDalf: string;
  /** Every other dalf named in `Dalfs` (the main one removed), in manifest order. */
  dependencyDalfs: string[];
  /** `Name` (damlc writes `<name>-<version>`), if present. */
  name?: string;
  sdkVersion?: string;
  /** Every main-section attribute, keys as written. */
  attributes: Record<string, string>;
}

/** The manifest is missing something Canton requires; the message is `DarManifestReader`'s. */
export class ManifestError extends Error {}

/** Parses the main section of a JAR-style manifest. Later duplicates overwrite earlier ones. */
export function parseManifestAttributes(text: string): Record<string, string> {
  const lines = text.split(/\r\n|\r|\n/);
  const logical: string[] = [];
  for (const line of lines) {
    if (line === '') break; // end of the main section
    if (line.startsWith(' ') && logical.length > 0) logical[logical.length - 1] += line.slice(1);
    else logical.push(line);
  }
  const attrs: Record<string, string> = {};
  for (const l of logical) {
    const i = l.indexOf(': ');
    if (i <= 0) continue;
    attrs[l.slice(0, i)] = l.slice(i + 2);
  }
  return attrs;
}

function get(attrs: Record<string, string>, key: string): string | undefined {
  const k = Object.keys(attrs).find((a) => a.toLowerCase() === key.toLowerCase());
  return k === undefined ? undefined : attrs[k]!.trim();
}

export function readDarManifest(bytes: Buffer): DarManifest {
  const attributes = parseManifestAttributes(bytes.toString('utf8'));
  const need = (key: string): string => {
    const v = get(attributes, key);
    if (v === undefined) throw new ManifestError(`Cannot find attribute: ${key}`);
    return v;
  };
  const mainDalf = need('Main-Dalf');
  const dalfs = need('Dalfs');
  const format = need('Format');
  if (format !== 'daml-lf') throw new ManifestError(`Unsupported format: ${format}`);
  const out: DarManifest = {
    mainDalf,
    dependencyDalfs: dalfs
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== mainDalf),
    attributes,
  };
  const name = get(attributes, 'Name');
  if (name !== undefined) out.name = name;
  const sdk = get(attributes, 'Sdk-Version');
  if (sdk !== undefined) out.sdkVersion = sdk;
  return out;
}
