// schema.mjs - checks a Kubernetes object against the API's schemas, as the npm package
// kubernetes-models holds them (pinned in package-lock.json). Two checks, both needed:
//  - the model's own validate(): types, required fields, enums and formats (a string where an
//    integer belongs, a container without a name, 512MB for a quantity);
//  - unknown fields: those schemas allow properties they do not name, so a misspelled field
//    (imagePullPolicyy, readinessprobe) would pass them, while the API server (kubectl's strict field
//    validation) refuses it. The names each type allows are read from the package's TypeScript
//    declarations (*.d.ts), which list every property of every type, and the object is walked
//    against them.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, "package.json"));
const MODELS = path.dirname(require.resolve("kubernetes-models/package.json"));
const APIMACHINERY = path.join(MODELS, "..", "@kubernetes-models", "apimachinery");

// ---- the declarations: alias name (IIoK8sApiCoreV1Container) -> parsed type ----------------------

let aliases = null; // alias -> { file, local }
const parsed = new Map(); // alias or file#local -> type

function walkDts(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== "node_modules") walkDts(p, out);
    else if (e.isFile() && e.name.endsWith(".d.ts")) out.push(p);
  }
}

function loadAliases() {
  if (aliases) return aliases;
  aliases = new Map();
  const files = [];
  walkDts(MODELS, files);
  walkDts(APIMACHINERY, files);
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/export type \{([^}]*)\}/g)) {
      for (const pair of m[1].split(",")) {
        const [local, alias] = pair.trim().split(/\s+as\s+/);
        if (alias) aliases.set(alias, { file, local });
      }
    }
  }
  return aliases;
}

function tokenize(text) {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, " ");
  const tokens = [];
  const re = /\s*("(?:[^"\\]|\\.)*"|[A-Za-z_$][\w$]*|-?\d+(?:\.\d+)?|[{}<>[\]();:?|,=&.])/y;
  let m;
  re.lastIndex = 0;
  while (re.lastIndex < src.length && (m = re.exec(src))) tokens.push(m[1]);
  return tokens;
}

// A recursive-descent parser for the type expressions the declarations use.
function parseType(tokens, pos) {
  const members = [];
  let [t, p] = parsePostfix(tokens, pos);
  members.push(t);
  while (tokens[p] === "|") {
    [t, p] = parsePostfix(tokens, p + 1);
    members.push(t);
  }
  return [members.length === 1 ? members[0] : { k: "union", of: members }, p];
}

function parsePostfix(tokens, pos) {
  let [t, p] = parsePrimary(tokens, pos);
  while (tokens[p] === "[" && tokens[p + 1] !== "]") p += 3; // X["kind"]: a literal, nothing to walk
  while (tokens[p] === "[" && tokens[p + 1] === "]") { t = { k: "array", of: t }; p += 2; }
  return [t, p];
}

function parsePrimary(tokens, pos) {
  const tok = tokens[pos];
  if (tok === "Array" && tokens[pos + 1] === "<") {
    const [of, p] = parseType(tokens, pos + 2);
    if (tokens[p] !== ">") throw new Error(`type parse: expected > at ${tokens.slice(p, p + 5).join(" ")}`);
    return [{ k: "array", of }, p + 1];
  }
  if (tok === "{") return parseObject(tokens, pos + 1, "}");
  if (tok === "(") {
    const [t, p] = parseType(tokens, pos + 1);
    return [t, p + 1];
  }
  if (/^["\d-]/.test(tok)) return [{ k: "lit" }, pos + 1];
  if (["string", "number", "boolean", "any", "unknown", "object", "null", "true", "false"].includes(tok)) {
    return [{ k: "prim", name: tok }, pos + 1];
  }
  if (/^[A-Za-z_$]/.test(tok)) return [{ k: "ref", name: tok }, pos + 1];
  throw new Error(`type parse: unexpected ${tok}`);
}

// Members up to CLOSE: "name"?: T;  name: T;  [key: string]: T;
function parseObject(tokens, pos, close) {
  const props = new Map();
  let index = null;
  let p = pos;
  while (tokens[p] !== close) {
    if (p >= tokens.length) throw new Error("type parse: unterminated object");
    if (tokens[p] === "[") {
      p += 5; // [ key : string ]
      [index, p] = parseType(tokens, p + 1); // after ':'
    } else {
      const name = tokens[p].startsWith('"') ? JSON.parse(tokens[p]) : tokens[p];
      p += tokens[p + 1] === "?" ? 3 : 2;
      let t;
      [t, p] = parseType(tokens, p);
      props.set(name, t);
    }
    while (tokens[p] === ";" || tokens[p] === ",") p++;
  }
  return [{ k: "obj", props, index }, p + 1];
}

// The type declared as LOCAL (an interface or a type alias) in FILE.
function localType(file, local) {
  const key = `${file}#${local}`;
  if (parsed.has(key)) return parsed.get(key);
  const text = readFileSync(file, "utf8");
  const tokens = tokenize(text);
  let t = null;
  for (let i = 0; i < tokens.length - 2; i++) {
    if (tokens[i] === "interface" && tokens[i + 1] === local) {
      let p = i + 2;
      while (tokens[p] !== "{") p++;
      [t] = parseObject(tokens, p + 1, "}");
      break;
    }
    if (tokens[i] === "type" && tokens[i + 1] === local && tokens[i + 2] === "=") {
      [t] = parseType(tokens, i + 3);
      break;
    }
  }
  if (!t) throw new Error(`${file}: no declaration of ${local}`);
  parsed.set(key, t);
  return t;
}

function resolve(name) {
  const a = loadAliases().get(name);
  return a ? localType(a.file, a.local) : null;
}

// ---- the walk -------------------------------------------------------------------------------------

function walk(value, type, where, problems, depth = 0) {
  if (value === null || typeof value !== "object" || depth > 64) return;
  if (type.k === "ref") {
    const t = resolve(type.name);
    if (t) walk(value, t, where, problems, depth + 1);
    else problems.unresolved.add(type.name);
    return;
  }
  if (type.k === "union") {
    const want = Array.isArray(value) ? "array" : "obj";
    const fits = type.of.map((t) => (t.k === "ref" ? resolve(t.name) ?? t : t)).filter((t) => t.k === want);
    if (fits.length === 1) walk(value, fits[0], where, problems, depth + 1);
    return;
  }
  if (type.k === "array" && Array.isArray(value)) {
    value.forEach((v, i) => walk(v, type.of, `${where}[${i}]`, problems, depth + 1));
    return;
  }
  if (type.k === "obj" && !Array.isArray(value)) {
    for (const [key, v] of Object.entries(value)) {
      const t = type.props.get(key) ?? type.index;
      if (!t) problems.errors.push(`${where}.${key}: unknown field`);
      else walk(v, t, `${where}.${key}`, problems, depth + 1);
    }
  }
}

// ---- one object -----------------------------------------------------------------------------------

function modelDir(apiVersion) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : [null, apiVersion];
  return group ? path.join(MODELS, group, version) : path.join(MODELS, version);
}

// The problems of object O, as strings ("spec.replicas: must be integer"); none when it is valid.
export async function checkObject(o) {
  if (typeof o.apiVersion !== "string" || typeof o.kind !== "string") return ["apiVersion and kind are required"];
  if (!/^[A-Za-z0-9.-]*\/?[a-z0-9]+$/.test(o.apiVersion) || !/^[A-Za-z]+$/.test(o.kind)) {
    return [`no schema for ${o.apiVersion} ${o.kind}`];
  }
  const dir = modelDir(o.apiVersion);
  let mod;
  try {
    mod = await import(pathToFileURL(path.join(dir, `${o.kind}.js`)).href);
  } catch {
    return [`no schema for ${o.apiVersion} ${o.kind} in kubernetes-models`];
  }
  const errors = [];
  try {
    new mod[o.kind](JSON.parse(JSON.stringify(o))).validate();
  } catch (e) {
    for (const line of String(e.message).split(/,\s*(?=data)/)) errors.push(line.replace(/^data\/?/, "").replaceAll("/", "."));
  }
  const problems = { errors: [], unresolved: new Set() };
  walk(o, localType(path.join(dir, `${o.kind}.d.ts`), `I${o.kind}`), o.kind, problems);
  if (problems.unresolved.size > 0) errors.push(`types not found in the declarations: ${[...problems.unresolved].join(", ")}`);
  return [...errors, ...problems.errors];
}
