// check.mjs - validates the Kubernetes manifests of a deploy/ folder:
//   node tools/manifests/check.mjs [--kubectl] DEPLOY_DIR
// - every kustomization under DEPLOY_DIR (a folder with a kustomization.yaml) is rendered
//   (kustomize.mjs) and each object it makes is checked against the Kubernetes schemas (schema.mjs);
// - every other YAML file there (a manifest applied on its own, an example not applied by default)
//   is checked the same way;
// - the overlays' own promises, which no schema knows: the Service selects the workload's pods, the
//   probes name a port the container has, the single overlay is one StatefulSet replica with a
//   volume claim, the replicas overlay a spread Deployment with a PodDisruptionBudget and its
//   database password from a Secret, no Secret is applied by default, and the pod settings the two
//   overlays share are the same in both;
// - with --kubectl, each kustomization is also rendered by `kubectl kustomize` and must give the same
//   objects, which holds the renderer to real kustomize.
// Exit status 0 when all is well, 1 with every problem listed otherwise, 2 for a usage error.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { objectKey, readYamlObjects, render } from "./kustomize.mjs";
import { checkObject } from "./schema.mjs";

const args = process.argv.slice(2);
const useKubectl = args[0] === "--kubectl";
if (useKubectl) args.shift();
if (args.length !== 1) {
  console.error("usage: node tools/manifests/check.mjs [--kubectl] DEPLOY_DIR");
  process.exit(2);
}
const deployDir = args[0];
const problems = [];
const fail = (where, what) => problems.push(`${where}: ${what}`);

function yamlFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yamlFiles(p, out);
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

// JSON with every mapping's keys sorted: equal objects give equal strings.
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

async function checkAll(objects, where) {
  for (const o of objects) {
    for (const p of await checkObject(o)) fail(`${where}: ${o.kind} ${o.metadata?.name ?? "?"}`, p);
  }
}

function podTemplate(o) {
  return o.spec?.template;
}

// The promises of any overlay that runs the service.
function checkServiceWiring(objects, where) {
  const services = objects.filter((o) => o.kind === "Service");
  const workloads = objects.filter((o) => ["Deployment", "StatefulSet"].includes(o.kind));
  if (services.length !== 1 || workloads.length !== 1) {
    fail(where, `expected one Service and one workload, found ${services.length} and ${workloads.length}`);
    return null;
  }
  const [svc, w] = [services[0], workloads[0]];
  const labels = podTemplate(w)?.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(svc.spec?.selector ?? {})) {
    if (labels[k] !== v) fail(where, `the Service selects ${k}=${v}, which the pods of ${w.kind} ${w.metadata.name} lack`);
  }
  for (const [k, v] of Object.entries(w.spec?.selector?.matchLabels ?? {})) {
    if (labels[k] !== v) fail(where, `${w.kind} ${w.metadata.name} selects ${k}=${v}, which its own pods lack`);
  }
  const c = podTemplate(w)?.spec?.containers?.find((x) => x.name === "nqueensd");
  if (!c) {
    fail(where, "no container named nqueensd");
    return null;
  }
  const ports = new Set((c.ports ?? []).map((p) => p.name));
  for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
    const port = c[probe]?.httpGet?.port;
    if (port === undefined) fail(where, `${probe} is missing`);
    else if (typeof port === "string" && !ports.has(port)) fail(where, `${probe} names port ${port}, which the container lacks`);
  }
  if (typeof svc.spec?.ports?.[0]?.targetPort === "string" && !ports.has(svc.spec.ports[0].targetPort)) {
    fail(where, `the Service targets port ${svc.spec.ports[0].targetPort}, which the container lacks`);
  }
  if (podTemplate(w).spec.enableServiceLinks !== false) fail(where, "enableServiceLinks must be false (NQUEENSD_PORT)");
  const secrets = objects.filter((o) => o.kind === "Secret");
  if (secrets.length > 0) fail(where, `applies Secret ${secrets[0].metadata?.name}: credentials are not kept in this tree`);
  return w;
}

function env(c, name) {
  return (c.env ?? []).find((e) => e.name === name);
}

function checkSingle(w, where) {
  if (w.kind !== "StatefulSet") return fail(where, `the workload is a ${w.kind}, not a StatefulSet`);
  if (w.spec.replicas !== 1) fail(where, "a SQLite store is one server per file: replicas must be 1");
  const c = w.spec.template.spec.containers.find((x) => x.name === "nqueensd");
  const store = env(c, "NQUEENSD_STORE")?.value ?? "";
  const mount = (c.volumeMounts ?? []).find((m) => store.startsWith(`${m.mountPath}/`));
  if (!mount) return fail(where, `the store ${store} is on no volume`);
  if (!(w.spec.volumeClaimTemplates ?? []).some((t) => t.metadata?.name === mount.name)) {
    fail(where, `the store's volume ${mount.name} is not a volumeClaimTemplate`);
  }
}

function checkReplicas(w, objects, where) {
  if (w.kind !== "Deployment") return fail(where, `the workload is a ${w.kind}, not a Deployment`);
  const labels = w.spec.template.metadata.labels;
  const pdb = objects.find((o) => o.kind === "PodDisruptionBudget");
  if (!pdb) fail(where, "no PodDisruptionBudget");
  else if (canonical(pdb.spec.selector?.matchLabels) !== canonical(w.spec.selector.matchLabels)) {
    fail(where, "the PodDisruptionBudget selects other pods than the Deployment's");
  }
  const spread = (w.spec.template.spec.topologySpreadConstraints ?? [])
    .find((t) => t.topologyKey === "kubernetes.io/hostname");
  if (!spread) fail(where, "no topologySpreadConstraint over kubernetes.io/hostname");
  else if (Object.entries(spread.labelSelector?.matchLabels ?? {}).some(([k, v]) => labels[k] !== v)) {
    fail(where, "the topologySpreadConstraint selects other pods than the Deployment's");
  }
  const c = w.spec.template.spec.containers.find((x) => x.name === "nqueensd");
  for (const name of ["NQUEENSD_STORE", "PGPASSWORD"]) {
    if (!env(c, name)?.valueFrom?.secretKeyRef) fail(where, `${name} is not taken from a Secret (secretKeyRef)`);
  }
  if ((c.volumeMounts ?? []).length > 0) fail(where, "a replica keeps no store of its own: no volume");
}

// The pod settings both overlays share (probes, resources, security, environment, shutdown) must
// not drift apart: the templates are compared without what differs by design.
function checkSameSettings(single, replicas) {
  const strip = (w) => {
    const t = JSON.parse(JSON.stringify(podTemplate(w)));
    delete t.spec.volumes;
    delete t.spec.topologySpreadConstraints;
    delete t.spec.securityContext?.fsGroupChangePolicy;
    for (const c of t.spec.containers) {
      delete c.image; // an installation sets its image in the one overlay it applies
      c.env = (c.env ?? []).filter((e) => !["NQUEENSD_STORE", "PGPASSWORD"].includes(e.name));
      delete c.volumeMounts;
    }
    return t;
  };
  const [a, b] = [strip(single), strip(replicas)];
  if (canonical(a) === canonical(b)) return;
  const diff = Object.keys({ ...a.spec, ...b.spec }).filter((k) => canonical(a.spec[k]) !== canonical(b.spec[k]));
  const cdiff = Object.keys({ ...a.spec.containers[0], ...b.spec.containers[0] })
    .filter((k) => canonical(a.spec.containers[0]?.[k]) !== canonical(b.spec.containers[0]?.[k]));
  fail("overlays single and replicas", `their shared pod settings differ: ${[...diff.filter((k) => k !== "containers"),
    ...cdiff.map((k) => `containers.${k}`), ...(canonical(a.metadata) === canonical(b.metadata) ? [] : ["metadata"])].join(", ")}`);
}

function compareWithKubectl(dir, mine) {
  let out;
  try {
    out = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    return fail(dir, `kubectl kustomize failed: ${String(e.stderr ?? e.message).trim()}`);
  }
  const theirs = parseAllDocuments(out).map((d) => d.toJS()).filter((o) => o);
  const index = (objs) => new Map(objs.map((o) => [objectKey(o), canonical(o)]));
  const [a, b] = [index(mine), index(theirs)];
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    if (!a.has(k)) fail(dir, `kubectl kustomize makes ${k}, this renderer does not`);
    else if (!b.has(k)) fail(dir, `this renderer makes ${k}, kubectl kustomize does not`);
    else if (a.get(k) !== b.get(k)) fail(dir, `${k} differs from kubectl kustomize's`);
  }
}

const files = yamlFiles(deployDir);
const kustomizations = files.filter((f) => path.basename(f) === "kustomization.yaml").map((f) => path.dirname(f));
let count = 0;
const rendered = new Map();
for (const dir of kustomizations) {
  let objects;
  try {
    objects = render(dir);
  } catch (e) {
    fail(dir, e.message);
    continue;
  }
  rendered.set(path.relative(deployDir, dir), objects);
  await checkAll(objects, dir);
  count += objects.length;
  if (useKubectl) compareWithKubectl(dir, objects);
}
for (const f of files) {
  if (path.basename(f) === "kustomization.yaml") continue;
  let objects;
  try {
    objects = readYamlObjects(f);
  } catch (e) {
    fail(f, e.message);
    continue;
  }
  if (objects.length === 0) fail(f, "no object");
  await checkAll(objects, f);
  count += objects.length;
}

const overlay = (name) => rendered.get(path.join("overlays", name));
const single = overlay("single");
const replicas = overlay("replicas");
if (!single || !replicas || !rendered.has("base")) {
  fail(deployDir, "expected the kustomizations base, overlays/single and overlays/replicas to render");
} else {
  const ws = checkServiceWiring(single, "overlays/single");
  const wr = checkServiceWiring(replicas, "overlays/replicas");
  if (ws) checkSingle(ws, "overlays/single");
  if (wr) checkReplicas(wr, replicas, "overlays/replicas");
  if (ws && wr) checkSameSettings(ws, wr);
}

if (problems.length > 0) {
  for (const p of problems) console.error(`check.mjs: ${p}`);
  console.error(`check.mjs: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(`check.mjs: ${count} objects in ${kustomizations.length} kustomizations and ${files.length - kustomizations.length} ` +
  `manifests valid${useKubectl ? ", and each kustomization rendered as kubectl kustomize renders it" : ""}`);
