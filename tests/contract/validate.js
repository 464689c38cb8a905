#!/usr/bin/env node
// validate.js - hold recorded nqueensd responses to the OpenAPI description (the contract check).
//
//   node validate.js <bundled-spec.json> <responses-dir>
//
// <bundled-spec.json> is openapi.yaml bundled and dereferenced by `redocly bundle --dereferenced`
// (40-contract.sh does that); <responses-dir> holds one JSON file per response the integration tests
// received, written by the shared HTTP test harness when NQ_RESPONSES_DIR is set:
//   {"method","path","query","status","headers":{lowercase name: value},"body": text, or null if compressed}
//
// For each response it checks, against the operation the spec documents for that path and method:
//   - the status is documented (exactly, as a range like 4XX, or as default);
//   - the Content-Type is one the spec lists for that status (none: application/octet-stream, as RFC
//     9110 8.3 lets a recipient assume), and a body is present only if the spec lists one;
//   - every header the spec marks required is present, and every documented header parses to its schema;
//   - the body validates against the schema (ajv; JSON, or each line of NDJSON; compressed bodies, which
//     the harness cannot show, are counted and skipped).
// Responses the spec cannot list per operation are held to the API's generic rules instead: an unknown
// path is a 404 problem; a method a path does not document is a 405 problem held to the spec's
// "x-method-not-allowed" response (its headers and body) whose Allow names exactly the methods the path
// documents (or the 404 of a templated path whose GET documents one: a name that does not exist); a
// status that libmicrohttpd itself may send, without Content-Type, is its own page even where the
// operation documents that status as a problem; HEAD follows GET with no body. Exits 1 if any response
// breaks the contract or if there were none at all.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const Ajv07 = require('ajv').default;
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

const PROBLEM_TYPE = 'application/problem+json';

// Statuses any route may answer before routing or admission, so the spec documents them once (its
// description's refusals, and reusable responses) rather than under every operation; for these the
// generic problem rules apply.
const GENERIC_STATUSES = new Set([400, 404, 405, 414, 431, 501, 505]);
// Those libmicrohttpd may also send itself, for a head it refuses before the server sees it: a short
// HTML page without Content-Type (so application/octet-stream, RFC 9110 8.3). A 505 is only that.
const LIBRARY_STATUSES = new Set([400, 414, 431, 505]);

// The methods a path supports, in the order the server's Allow header names them.
const ALLOW_ORDER = ['get', 'head', 'post', 'put', 'delete', 'patch', 'options'];

// The Allow header a 405 on this path item must carry: the methods it documents (HEAD wherever GET
// is, RFC 9110 9.3.2), e.g. "GET, HEAD, POST, OPTIONS".
function allowFor(item) {
  const has = (m) => Boolean(item[m]) || (m === 'head' && Boolean(item.get));
  return ALLOW_ORDER.filter(has).map((m) => m.toUpperCase()).join(', ');
}

// A path template ("/problems/{slug}") as an anchored regular expression; one segment per parameter.
function templateRegex(template) {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

// Replace every internal {"$ref": "#/..."} by what it points to. The bundled spec is already
// dereferenced (this is then a no-op); hand-written fixtures need not be. Cyclic references are not
// supported: the contract's schemas have none, and ajv would need them left as $refs.
function dereference(node, root, stack = []) {
  if (Array.isArray(node)) return node.map((v) => dereference(v, root, stack));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    if (stack.includes(node.$ref)) throw new Error(`cyclic $ref ${node.$ref}`);
    const target = node.$ref.slice(2).split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((obj, key) => (obj === undefined ? undefined : obj[key]), root);
    if (target === undefined) throw new Error(`unresolved $ref ${node.$ref}`);
    return dereference(target, root, [...stack, node.$ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, dereference(v, root, stack)]));
}

// "application/json; charset=utf-8" -> "application/json"
function mediaType(value) {
  return value === undefined ? undefined : String(value).split(';')[0].trim().toLowerCase();
}

function isJsonMedia(media) {
  return media === 'application/json' || /^application\/[^;]+\+json$/.test(media);
}

class Contract {
  constructor(spec) {
    if (!spec || typeof spec.openapi !== 'string' || !spec.paths) {
      throw new Error('not an OpenAPI document (no "openapi" version or no "paths")');
    }
    const v31 = spec.openapi.startsWith('3.1.');
    if (!v31 && !spec.openapi.startsWith('3.0.')) {
      throw new Error(`unsupported OpenAPI version ${spec.openapi} (3.0.x and 3.1.x are)`);
    }
    this.spec = dereference(spec, spec);
    // 3.1 schemas are JSON Schema 2020-12; 3.0 schemas are a draft-04/07 dialect with "nullable",
    // which ajv understands natively. strict:false lets OpenAPI's annotations (example, xml, ...) pass.
    const Ajv = v31 ? Ajv2020 : Ajv07;
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.validators = new WeakMap();
    // Concrete paths first: OpenAPI says "/problems/list" wins over "/problems/{slug}".
    this.paths = Object.entries(this.spec.paths)
      .map(([template, item]) => ({ template, item, re: templateRegex(template) }))
      .sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
    this.problemSchema = this.findProblemSchema();
    // The 405 every path answers to a method it does not document, described once (may be absent).
    this.methodNotAllowed = this.spec['x-method-not-allowed'];
    this.seen = new Set(); // "get /count 200" for the coverage report
  }

  // The schema of a problem body: components.schemas.Problem, else that of any documented problem.
  findProblemSchema() {
    const schemas = (this.spec.components && this.spec.components.schemas) || {};
    const named = Object.keys(schemas).find((k) => k.toLowerCase() === 'problem');
    if (named) return schemas[named];
    for (const { item } of this.paths) {
      for (const op of Object.values(item)) {
        for (const resp of Object.values((op && op.responses) || {})) {
          const media = resp && resp.content && resp.content[PROBLEM_TYPE];
          if (media && media.schema) return media.schema;
        }
      }
    }
    return undefined;
  }

  validator(schema) {
    let v = this.validators.get(schema);
    if (!v) {
      v = this.ajv.compile(schema);
      this.validators.set(schema, v);
    }
    return v;
  }

  schemaErrors(schema, value, where) {
    const v = this.validator(schema);
    if (v(value)) return [];
    return v.errors.map((e) => `${where}${e.instancePath || ''} ${e.message}` +
      (e.params && e.params.additionalProperty ? ` ('${e.params.additionalProperty}')` : '') +
      (e.params && e.params.allowedValues ? ` (${JSON.stringify(e.params.allowedValues)})` : ''));
  }

  // Every contract breach in one recorded response, as sentences; [] when it conforms.
  check(rec) {
    const shape = checkRecordShape(rec);
    if (shape.length) return shape;
    const method = rec.method.toLowerCase();
    const entry = this.paths.find((p) => p.re.test(rec.path));
    // A refusal before routing may come for any path and method; else an unknown path is a 404 and an
    // undocumented method a 405.
    const refused = GENERIC_STATUSES.has(rec.status) && rec.status !== 404 && rec.status !== 405;
    if (!entry) return this.checkGeneric(rec, refused ? rec.status : 404, 'the spec documents no such path');
    let opMethod = method;
    let label = `${rec.method} ${entry.template}`;
    if (!entry.item[method] && method === 'head' && entry.item.get) {
      opMethod = 'get'; // HEAD is GET without the body (RFC 9110 9.3.2)
      label += ' (as GET)';
    }
    const op = entry.item[opMethod];
    if (!op) return this.checkUndocumentedMethod(rec, entry, refused);
    // libmicrohttpd's own refusal page (no Content-Type) where the operation documents the problem.
    if (LIBRARY_STATUSES.has(rec.status) && rec.headers['content-type'] === undefined) {
      return this.checkGeneric(rec, rec.status, '');
    }
    const resp = lookupResponse(op.responses || {}, rec.status);
    if (!resp) {
      if (GENERIC_STATUSES.has(rec.status)) return this.checkGeneric(rec, rec.status, '');
      return [`status ${rec.status} is not documented for ${label}` +
        ` (documented: ${Object.keys(op.responses || {}).join(', ')})`];
    }
    this.seen.add(`${opMethod} ${entry.template} ${resp.key}`);
    return [...this.checkHeaders(rec, resp.def), ...this.checkBody(rec, resp.def)];
  }

  // A method the path does not document: 405 with Allow naming exactly the path's methods, held to
  // x-method-not-allowed when the spec has it; a templated path whose GET documents 404 may answer
  // that 404 first (no such name); a refusal before routing stays generic.
  checkUndocumentedMethod(rec, entry, refused) {
    const why = `${rec.method} is not documented for ${entry.template}`;
    if (refused) return this.checkGeneric(rec, rec.status, why);
    const get = entry.item.get;
    if (rec.status === 404 && entry.template.includes('{') && get && get.responses && get.responses['404']) {
      return this.checkGeneric(rec, 404, why);
    }
    if (rec.status !== 405) return [`status ${rec.status}: ${why}, so 405 was expected`];
    const errors = [];
    const allow = allowFor(entry.item);
    if (rec.headers.allow !== undefined && rec.headers.allow !== allow) {
      errors.push(`405 Allow is '${rec.headers.allow}', but ${entry.template} documents '${allow}'`);
    }
    if (!this.methodNotAllowed) return errors.concat(this.checkGeneric(rec, 405, why));
    this.seen.add('x-method-not-allowed');
    if (rec.headers.allow === undefined) errors.push('405 without an Allow header');
    return errors.concat(this.checkHeaders(rec, this.methodNotAllowed), this.checkBody(rec, this.methodNotAllowed));
  }

  // Responses the spec need not list per operation: 400, 404, 405 (with Allow), 414, 431 and 501 as
  // problems; 400, 414, 431 and 505 also as libmicrohttpd's own page.
  checkGeneric(rec, expected, why) {
    const errors = [];
    if (rec.status !== expected) {
      errors.push(`status ${rec.status}: ${why || 'not documented'}, so ${expected} was expected`);
      return errors;
    }
    if (expected === 405 && rec.headers.allow === undefined) errors.push('405 without an Allow header');
    const content = {};
    if (expected !== 505) content[PROBLEM_TYPE] = { schema: this.problemSchema };
    if (LIBRARY_STATUSES.has(expected)) content['application/octet-stream'] = {};
    const def = { content };
    if (!this.problemSchema) errors.push('the spec defines no problem schema to check this error against');
    return errors.concat(this.checkBody(rec, def));
  }

  checkHeaders(rec, def) {
    const errors = [];
    for (const [name, h] of Object.entries(def.headers || {})) {
      const lower = name.toLowerCase();
      if (lower === 'content-type') continue; // described by "content", ignored here by OpenAPI rule
      const value = rec.headers[lower];
      if (value === undefined) {
        if (h.required) errors.push(`required header ${name} is missing`);
        continue;
      }
      const schema = h.schema || (h.content && Object.values(h.content)[0].schema);
      if (schema) errors.push(...this.schemaErrors(schema, coerceHeader(schema, value), `header ${name}`));
    }
    return errors;
  }

  checkBody(rec, def) {
    const hasBody = rec.body === null || (typeof rec.body === 'string' && rec.body.length > 0);
    // No Content-Type: the recipient may take the body as application/octet-stream (RFC 9110 8.3).
    const declared = mediaType(rec.headers['content-type']);
    const media = declared === undefined ? 'application/octet-stream' : declared;
    const content = def.content || {};
    const listed = Object.keys(content);
    if (rec.method === 'HEAD' || rec.status === 304 || rec.status === 204) {
      return hasBody ? [`a ${rec.method === 'HEAD' ? 'HEAD response' : rec.status} must have no body`] : [];
    }
    if (listed.length === 0) return hasBody ? ['a body was sent where the spec documents none'] : [];
    const key = listed.find((k) => mediaMatches(mediaType(k), media));
    if (!key && declared === undefined) {
      return [`no Content-Type header (so ${media}, RFC 9110 8.3), which is not documented ` +
        `(documented: ${listed.join(', ')})`];
    }
    if (!key) return [`Content-Type ${media} is not documented (documented: ${listed.join(', ')})`];
    if (rec.body === null) return []; // compressed: counted by the caller, schema not checkable
    const schema = content[key].schema;
    if (!schema) return [];
    if (media === 'application/x-ndjson') return this.checkNdjson(rec.body, schema);
    if (!isJsonMedia(media)) return this.schemaErrors(schema, rec.body, 'body');
    let value;
    try {
      value = JSON.parse(rec.body);
    } catch (e) {
      return [`body is not valid JSON: ${e.message}`];
    }
    return this.schemaErrors(schema, value, 'body');
  }

  // NDJSON: one JSON value per line, each valid against the schema documented for the media type.
  checkNdjson(body, schema) {
    if (body.length > 0 && !body.endsWith('\n')) return ['NDJSON body does not end with a newline'];
    const errors = [];
    body.split('\n').slice(0, -1).forEach((line, i) => {
      try {
        errors.push(...this.schemaErrors(schema, JSON.parse(line), `line ${i + 1}`));
      } catch (e) {
        errors.push(`line ${i + 1} is not valid JSON: ${e.message}`);
      }
    });
    return errors;
  }

  // Documented statuses that no recorded response exercised, per operation: ["GET /count: 414, 431"].
  unexercised() {
    const out = [];
    if (this.methodNotAllowed && !this.seen.has('x-method-not-allowed')) out.push('x-method-not-allowed: 405');
    for (const { template, item } of this.paths) {
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object' || !op.responses) continue;
        const missing = Object.keys(op.responses).filter((k) => !this.seen.has(`${method} ${template} ${k}`));
        if (missing.length) out.push(`${method.toUpperCase()} ${template}: ${missing.join(', ')}`);
      }
    }
    return out;
  }
}

// The harness's record format, checked first so a broken recorder fails loudly, not as odd findings.
function checkRecordShape(rec) {
  const errors = [];
  if (!rec || typeof rec !== 'object') return ['record is not a JSON object'];
  if (typeof rec.method !== 'string' || !/^[A-Z]+$/.test(rec.method)) errors.push('record: bad "method"');
  if (typeof rec.path !== 'string' || !rec.path.startsWith('/')) errors.push('record: bad "path"');
  if (!Number.isInteger(rec.status) || rec.status < 100 || rec.status > 599) errors.push('record: bad "status"');
  if (!rec.headers || typeof rec.headers !== 'object') errors.push('record: bad "headers"');
  else if (Object.keys(rec.headers).some((k) => k !== k.toLowerCase())) errors.push('record: header names not lowercase');
  if (rec.body !== null && typeof rec.body !== 'string') errors.push('record: "body" is neither text nor null');
  return errors;
}

// The response object for status: exact code first, then its range ("4XX"), then "default".
function lookupResponse(responses, status) {
  for (const key of [String(status), `${Math.floor(status / 100)}XX`, 'default']) {
    const def = responses[key] || responses[key.toLowerCase()];
    if (def) return { key, def };
  }
  return undefined;
}

function mediaMatches(documented, actual) {
  if (documented === actual || documented === '*/*') return true;
  return documented.endsWith('/*') && actual.startsWith(documented.slice(0, -1));
}

// Header values arrive as text; compare them to numeric schemas as numbers.
function coerceHeader(schema, value) {
  const types = [].concat(schema.type || []);
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) {
    return Number(value);
  }
  return value;
}

// "GET /count?n=8 -> 200", the target cut to 120 characters (tests send 200 KB targets on purpose).
function describe(rec) {
  const target = rec.path + (rec.query ? `?${rec.query}` : '');
  const shown = target.length > 120 ? `${target.slice(0, 117)}...` : target;
  return `${rec.method} ${shown} -> ${rec.status}`;
}

function main(argv) {
  if (argv.length !== 2) {
    process.stderr.write('usage: validate.js <bundled-spec.json> <responses-dir>\n');
    return 2;
  }
  const [specPath, dir] = argv;
  const contract = new Contract(JSON.parse(fs.readFileSync(specPath, 'utf8')));
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  let passed = 0;
  let failed = 0;
  let compressed = 0;
  for (const file of files) {
    let rec;
    let errors;
    try {
      rec = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      errors = contract.check(rec);
    } catch (e) {
      errors = [`unreadable record: ${e.message}`];
    }
    if (errors.length === 0) {
      passed++;
      if (rec.body === null) compressed++;
      continue;
    }
    failed++;
    process.stdout.write(`FAIL ${rec && rec.method ? describe(rec) : '?'}  [${file}]\n`);
    for (const e of errors) process.stdout.write(`     ${e}\n`);
  }
  const missing = contract.unexercised();
  process.stdout.write(`contract: ${files.length} responses checked against ${contract.spec.info.title} ` +
    `${contract.spec.info.version} (OpenAPI ${contract.spec.openapi}); ${compressed} had compressed bodies ` +
    '(status, type and headers checked, body not)\n');
  if (missing.length) {
    process.stdout.write('contract: documented statuses no test exercised (add tests for these):\n' +
      missing.map((m) => `     ${m}\n`).join(''));
  }
  if (files.length === 0) process.stdout.write('contract: no responses recorded: is NQ_RESPONSES_DIR wired?\n');
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  return failed === 0 && files.length > 0 ? 0 : 1;
}

module.exports = { Contract, templateRegex, lookupResponse, mediaType, allowFor };

if (require.main === module) process.exitCode = main(process.argv.slice(2));
