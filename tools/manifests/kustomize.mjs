// kustomize.mjs - renders a kustomization directory into its objects, as `kubectl kustomize` does,
// for the part of kustomize that deploy/ uses: resources (files and directories, a directory being
// another kustomization), namespace, images and replicas. Any other field of a kustomization is
// refused by name rather than ignored, so a kustomization that needs real kustomize is not validated
// as something it is not. kustomize itself is not packaged for Debian 12; where `kubectl` is on PATH,
// scripts/test.d/04-manifests.sh also renders with it and compares the two.
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";

const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
const SUPPORTED = new Set(["apiVersion", "kind", "resources", "namespace", "images", "replicas"]);
const SCALABLE = new Set(["Deployment", "StatefulSet", "ReplicaSet"]);
// Kinds without a namespace among those a deployment of this service could hold.
const CLUSTER_SCOPED = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume",
  "StorageClass", "PriorityClass", "CustomResourceDefinition"]);

// Every YAML document of FILE that is not empty, as plain objects. A syntax error or a duplicate key
// (which YAML forbids and which Kubernetes would resolve silently) is an error naming the file.
export function readYamlObjects(file) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"), { uniqueKeys: true, strict: true });
  const out = [];
  for (const doc of docs) {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length > 0) throw new Error(`${file}: ${problems[0].message}`);
    const value = doc.toJS({ maxAliasCount: 0 });
    if (value === null || value === undefined) continue;
    if (typeof value !== "object" || Array.isArray(value)) throw new Error(`${file}: a document is not a mapping`);
    out.push(value);
  }
  return out;
}

function kustomizationFile(dir) {
  const found = KUSTOMIZATION_FILES.map((f) => path.join(dir, f)).filter((f) => isFile(f));
  if (found.length !== 1) throw new Error(`${dir}: expected one kustomization file, found ${found.length}`);
  return found[0];
}

function isFile(p) {
  try { return statSync(p).isFile(); } catch { return false; }
}
function isDir(p) {
  try { return statSync(p).isDirectory(); } catch { return false; }
}

export function objectKey(o) {
  return `${o.apiVersion}/${o.kind}/${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

// The objects of the kustomization in DIR, its resources first (depth first, in order), then this
// level's transformations. SEEN guards against a cycle of directories.
export function render(dir, seen = new Set()) {
  const root = path.resolve(dir);
  if (seen.has(root)) throw new Error(`${dir}: kustomization cycle`);
  seen.add(root);
  const file = kustomizationFile(root);
  const docs = readYamlObjects(file);
  if (docs.length !== 1) throw new Error(`${file}: expected one document`);
  const k = docs[0];
  if (k.apiVersion !== "kustomize.config.k8s.io/v1beta1" || k.kind !== "Kustomization") {
    throw new Error(`${file}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }
  for (const field of Object.keys(k)) {
    if (!SUPPORTED.has(field)) {
      throw new Error(`${file}: field "${field}" is not handled by tools/manifests/kustomize.mjs ` +
        `(it handles ${[...SUPPORTED].join(", ")}); render with kustomize, or extend the renderer`);
    }
  }
  const objects = [];
  for (const r of k.resources ?? []) {
    if (typeof r !== "string" || /^[a-z]+:\/\//.test(r)) throw new Error(`${file}: resource ${JSON.stringify(r)}: only local paths`);
    const p = path.resolve(root, r);
    if (isDir(p)) {
      objects.push(...render(p, seen));
    } else if (isFile(p)) {
      // kustomize's default load restriction: a file must be inside the kustomization's folder.
      if (path.relative(root, p).startsWith("..")) throw new Error(`${file}: resource ${r} is outside ${dir}`);
      objects.push(...readYamlObjects(p));
    } else {
      throw new Error(`${file}: resource ${r} does not exist`);
    }
  }
  seen.delete(root);
  if (k.namespace !== undefined) setNamespace(objects, k.namespace);
  if (k.images !== undefined) setImages(objects, k.images, file);
  if (k.replicas !== undefined) setReplicas(objects, k.replicas, file);
  const keys = new Set();
  for (const o of objects) {
    const key = objectKey(o);
    if (keys.has(key)) throw new Error(`${file}: ${key} is defined more than once`);
    keys.add(key);
  }
  return objects;
}

function setNamespace(objects, ns) {
  for (const o of objects) {
    if (!CLUSTER_SCOPED.has(o.kind)) o.metadata = { ...o.metadata, namespace: ns };
  }
}

function podSpecs(o) {
  const t = o.kind === "CronJob" ? o.spec?.jobTemplate?.spec?.template : o.kind === "Pod" ? o : o.spec?.template;
  return t?.spec ? [t.spec] : [];
}

// images: [{name, newName?, newTag?, digest?}]: every container image whose name (without tag or
// digest) is NAME gets the new name, tag or digest.
function setImages(objects, images, file) {
  for (const img of images) {
    if (typeof img?.name !== "string") throw new Error(`${file}: images: an entry without a name`);
    for (const o of objects) {
      for (const spec of podSpecs(o)) {
        for (const c of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
          const m = /^([^@]*?)(?::([^:/@]+))?(?:@(.+))?$/.exec(c.image ?? "");
          if (!m || m[1] !== img.name) continue;
          let name = img.newName ?? m[1];
          if (img.digest !== undefined) name += `@${img.digest}`;
          else if (img.newTag !== undefined) name += `:${img.newTag}`;
          else if (m[2] !== undefined) name += `:${m[2]}`;
          else if (m[3] !== undefined) name += `@${m[3]}`;
          c.image = name;
        }
      }
    }
  }
}

function setReplicas(objects, replicas, file) {
  for (const r of replicas) {
    if (!Number.isInteger(r?.count) || r.count < 0) throw new Error(`${file}: replicas: ${r?.name}: count must be a whole number`);
    const targets = objects.filter((o) => SCALABLE.has(o.kind) && o.metadata?.name === r.name);
    if (targets.length === 0) throw new Error(`${file}: replicas: no Deployment, StatefulSet or ReplicaSet named ${r.name}`);
    for (const o of targets) o.spec = { ...o.spec, replicas: r.count };
  }
}
