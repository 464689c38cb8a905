// validate.test.js - the contract validator must pass conforming responses and reject doctored ones.
//
// Two layers: table-driven cases against a small fixture spec (fixtures/mini-openapi.json), and, when
// 40-contract.sh provides them (NQ_BUNDLED_SPEC, NQ_RESPONSES_DIR), real recorded responses of
// nqueensd checked against the real bundled openapi.yaml, then doctored and expected to be rejected.
'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Contract } = require('../validate.js');

const fixture = () => new Contract(require('../fixtures/mini-openapi.json'));

const okHeaders = { etag: '"c-8"', 'cache-control': 'public, max-age=86400, immutable', 'content-type': 'application/json' };
const problemHeaders = { 'content-type': 'application/problem+json', 'cache-control': 'no-store' };
const problem = (status, instance) => JSON.stringify({
  type: '/problems/x', title: 'X', status, detail: 'Something a person can act on.', instance,
});
const rec = (over) => ({ method: 'GET', path: '/count', query: 'n=8', status: 200, headers: okHeaders,
  body: '{"n":8,"total":92,"unique":12}', ...over });

// [name, record, substring expected in the first error or null when the record conforms]
const cases = [
  ['conforming 200', rec({}), null],
  ['200, compressed body (not schema-checked)', rec({ body: null }), null],
  ['304 without a body', rec({ status: 304, body: '', headers: { etag: '"c-8"' } }), null],
  ['400 problem', rec({ status: 400, headers: problemHeaders, body: problem(400, '/count') }), null],
  ['HEAD follows GET, no body', rec({ method: 'HEAD', body: '' }), null],
  ['OPTIONS 204', rec({ method: 'OPTIONS', status: 204, headers: {}, body: '' }), null],
  ['unknown path: 404 problem', rec({ path: '/nope', status: 404, headers: problemHeaders, body: problem(404, '/nope') }), null],
  ['undocumented method: 405 with Allow', rec({ method: 'POST', status: 405, headers: { ...problemHeaders, allow: 'GET, HEAD, OPTIONS' }, body: problem(405, '/count') }), null],
  ['templated path', rec({ path: '/problems/not-found', status: 200, headers: { 'content-type': 'text/html' }, body: '<p>x</p>' }), null],
  ['NDJSON, one schema-valid value per line', rec({ path: '/solve', headers: { 'content-type': 'application/x-ndjson' }, body: '[".Q"]\n["Q."]\n' }), null],
  ['before routing: a 501 problem, listed under no operation', rec({ status: 501, headers: problemHeaders, body: problem(501, '/count') }), null],
  ["before routing: libmicrohttpd's own 505 page, no Content-Type", rec({ status: 505, headers: {}, body: '<html><body>HTTP version not supported</body></html>' }), null],
  ["before routing: libmicrohttpd's own 400 page on a path without a 400", rec({ path: '/nope', status: 400, headers: {}, body: '<html>Bad request</html>' }), null],
  ["before routing: libmicrohttpd's own 400 page where the operation documents a 400 problem", rec({ status: 400, headers: {}, body: '<html>Bad request</html>' }), null],
  ['503 with an integer Retry-After', rec({ status: 503, headers: { ...problemHeaders, 'retry-after': '2' }, body: problem(503, '/count') }), null],

  ['doctored: a count as a string', rec({ body: '{"n":8,"total":"92","unique":12}' }), 'body/total must be integer'],
  ['doctored: an extra member', rec({ body: '{"n":8,"total":92,"unique":12,"cached":true}' }), 'additional properties'],
  ['doctored: a required member missing', rec({ body: '{"n":8,"total":92}' }), "must have required property 'unique'"],
  ['doctored: not JSON', rec({ body: '{"n":8,' }), 'not valid JSON'],
  ['doctored: undocumented status', rec({ status: 418 }), 'status 418 is not documented for GET /count'],
  ['doctored: required header missing', rec({ headers: { ...okHeaders, etag: undefined } }), 'required header ETag is missing'],
  ['doctored: header breaks its schema', rec({ headers: { ...okHeaders, etag: 'W/weak' } }), 'header ETag must match pattern'],
  ['doctored: Retry-After not an integer', rec({ status: 503, headers: { ...problemHeaders, 'retry-after': 'soon' }, body: problem(503, '/count') }), 'header Retry-After must be integer'],
  ['doctored: wrong content type', rec({ headers: { ...okHeaders, 'content-type': 'text/plain' } }), 'Content-Type text/plain is not documented'],
  ['doctored: no content type', rec({ headers: { ...okHeaders, 'content-type': undefined } }), 'no Content-Type'],
  ['doctored: problem body missing detail', rec({ status: 400, headers: problemHeaders, body: '{"type":"/problems/x","title":"X","status":400,"instance":"/count"}' }), "required property 'detail'"],
  ['doctored: problem header wrong', rec({ status: 400, headers: { ...problemHeaders, 'cache-control': 'max-age=60' }, body: problem(400, '/count') }), 'header Cache-Control must be equal to constant'],
  ['doctored: HEAD with a body', rec({ method: 'HEAD' }), 'HEAD response must have no body'],
  ['doctored: 304 with a body', rec({ status: 304, headers: { etag: '"c-8"' } }), '304 must have no body'],
  ['doctored: body where none is documented', rec({ method: 'OPTIONS', status: 204, headers: {}, body: 'x' }), '204 must have no body'],
  ['doctored: unknown path answered 200', rec({ path: '/nope' }), 'the spec documents no such path, so 404 was expected'],
  ['doctored: 405 without Allow', rec({ method: 'POST', status: 405, headers: problemHeaders, body: problem(405, '/count') }), '405 without an Allow header'],
  ['doctored: 405 whose Allow is not the path\'s methods', rec({ method: 'DELETE', status: 405, headers: { ...problemHeaders, allow: 'GET, HEAD, POST, OPTIONS' }, body: problem(405, '/count') }), "405 Allow is 'GET, HEAD, POST, OPTIONS', but /count documents 'GET, HEAD, OPTIONS'"],
  ['doctored: an undocumented method answered 200', rec({ method: 'PUT' }), 'PUT is not documented for /count, so 405 was expected'],
  ['doctored: 404 to a method where GET documents no 404', rec({ method: 'PUT', path: '/problems/x', status: 404, headers: problemHeaders, body: problem(404, '/problems/x') }), 'so 405 was expected'],
  ['doctored: a 503 without Content-Type (not a status libmicrohttpd sends)', rec({ status: 503, headers: { 'retry-after': '2' }, body: '<html>busy</html>' }), 'no Content-Type'],
  ['doctored: NDJSON line breaks schema', rec({ path: '/solve', headers: { 'content-type': 'application/x-ndjson' }, body: '[".Q"]\n[1]\n' }), 'line 2/0 must be string'],
  ['doctored: NDJSON without final newline', rec({ path: '/solve', headers: { 'content-type': 'application/x-ndjson' }, body: '[".Q"]' }), 'does not end with a newline'],
  ['doctored: a 505 as JSON', rec({ status: 505, headers: { 'content-type': 'application/json' }, body: '{}' }), 'Content-Type application/json is not documented'],
  ['doctored: a 501 as HTML', rec({ status: 501, headers: { 'content-type': 'text/html' }, body: '<p>x</p>' }), 'Content-Type text/html is not documented'],
  ['broken record: uppercase header name', rec({ headers: { ETag: '"x"' } }), 'header names not lowercase'],
];

for (const [name, record, expected] of cases) {
  test(`fixture: ${name}`, () => {
    // Drop headers set to undefined, as a recorder would never write them.
    const headers = Object.fromEntries(Object.entries(record.headers).filter(([, v]) => v !== undefined));
    const errors = fixture().check({ ...record, headers });
    if (expected === null) assert.deepEqual(errors, []);
    else assert.ok(errors.length > 0 && errors[0].includes(expected), `expected "${expected}", got ${JSON.stringify(errors)}`);
  });
}

// The spec's x-method-not-allowed: every 405 is held to its headers and body, Allow computed per path.
const with405 = () => new Contract({
  ...require('../fixtures/mini-openapi.json'),
  'x-method-not-allowed': {
    description: 'not allowed',
    headers: {
      Allow: { required: true, schema: { type: 'string', enum: ['GET, HEAD, OPTIONS', 'GET, HEAD, POST, OPTIONS'] } },
      'Cache-Control': { required: true, schema: { type: 'string', const: 'no-store' } },
    },
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  },
});
const allowed405 = rec({ method: 'PATCH', status: 405, headers: { ...problemHeaders, allow: 'GET, HEAD, OPTIONS' }, body: problem(405, '/count') });
const cases405 = [
  ['a 405 as x-method-not-allowed describes it', allowed405, null],
  ['doctored: 405 without its Cache-Control', { ...allowed405, headers: { ...allowed405.headers, 'cache-control': undefined } }, 'required header Cache-Control is missing'],
  ['doctored: 405 with a body that is no problem', { ...allowed405, body: '{"status":405}' }, "must have required property 'type'"],
  ['doctored: 405 with another path\'s Allow', { ...allowed405, path: '/solve', body: problem(405, '/solve') }, "but /solve documents 'GET, HEAD'"],
];
for (const [name, record, expected] of cases405) {
  test(`x-method-not-allowed: ${name}`, () => {
    const headers = Object.fromEntries(Object.entries(record.headers).filter(([, v]) => v !== undefined));
    const errors = with405().check({ ...record, headers });
    if (expected === null) assert.deepEqual(errors, []);
    else assert.ok(errors.some((e) => e.includes(expected)), `expected "${expected}", got ${JSON.stringify(errors)}`);
  });
}

test('CLI: a directory with one doctored response exits 1 and says why', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nq-contract-'));
  try {
    fs.writeFileSync(path.join(dir, '0001.json'), JSON.stringify(rec({})));
    fs.writeFileSync(path.join(dir, '0002.json'), JSON.stringify(rec({ body: '{"n":8,"total":-1.5,"unique":12}' })));
    const spec = path.join(__dirname, '..', 'fixtures', 'mini-openapi.json');
    const run = spawnSync(process.execPath, [path.join(__dirname, '..', 'validate.js'), spec, dir], { encoding: 'utf8' });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /FAIL GET \/count\?n=8 -> 200 {2}\[0002\.json\]/);
    assert.match(run.stdout, /body\/total must be integer/);
    assert.match(run.stdout, /^1 passed, 1 failed$/m);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: an empty directory fails (nothing was checked)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nq-contract-'));
  try {
    const spec = path.join(__dirname, '..', 'fixtures', 'mini-openapi.json');
    const run = spawnSync(process.execPath, [path.join(__dirname, '..', 'validate.js'), spec, dir], { encoding: 'utf8' });
    assert.equal(run.status, 1);
    assert.match(run.stdout, /no responses recorded/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---- the real spec and real responses (40-contract.sh sets these) ----------------------------------

const realSpec = process.env.NQ_BUNDLED_SPEC;
const realDir = process.env.NQ_RESPONSES_DIR;
const real = realSpec && realDir ? { skip: false } : { skip: 'NQ_BUNDLED_SPEC and NQ_RESPONSES_DIR not set' };

// A recorded response of the real server: a 200 JSON answer of the route, body uncompressed.
function recorded(route) {
  for (const f of fs.readdirSync(realDir).filter((x) => x.endsWith('.json')).sort()) {
    const r = JSON.parse(fs.readFileSync(path.join(realDir, f), 'utf8'));
    if (r.method === 'GET' && r.path === route && r.status === 200 && typeof r.body === 'string' &&
        /json/.test(r.headers['content-type'] || '') && !/ndjson/.test(r.headers['content-type'])) return r;
  }
  return undefined;
}

test('real spec: a recorded /count answer conforms, and each doctored copy is rejected', real, () => {
  const contract = new Contract(JSON.parse(fs.readFileSync(realSpec, 'utf8')));
  const r = recorded('/count');
  assert.ok(r, 'the integration tests recorded no 200 JSON answer of GET /count');
  assert.deepEqual(contract.check(r), []);
  const body = JSON.parse(r.body);
  const doctored = [
    ['total as a string', { ...r, body: JSON.stringify({ ...body, total: String(body.total) }) }],
    ['unique missing', { ...r, body: JSON.stringify({ n: body.n, total: body.total }) }],
    ['undocumented status 299', { ...r, status: 299 }],
    ['problem type for a success', { ...r, headers: { ...r.headers, 'content-type': 'application/xml' } }],
  ];
  for (const [name, d] of doctored) assert.notDeepEqual(contract.check(d), [], `accepted: ${name}`);
});

test('real spec: a recorded /solve answer conforms, and a malformed solution is rejected', real, () => {
  const contract = new Contract(JSON.parse(fs.readFileSync(realSpec, 'utf8')));
  const r = recorded('/solve');
  assert.ok(r, 'the integration tests recorded no 200 JSON answer of GET /solve');
  assert.deepEqual(contract.check(r), []);
  const body = JSON.parse(r.body);
  assert.notDeepEqual(contract.check({ ...r, body: JSON.stringify({ ...body, solutions: 'none' }) }), []);
  assert.notDeepEqual(contract.check({ ...r, body: JSON.stringify({ ...body, n: -1 }) }), []);
});

test('real spec: no operation only refuses, and a recorded 405 conforms while doctored copies do not', real, () => {
  const spec = JSON.parse(fs.readFileSync(realSpec, 'utf8'));
  const contract = new Contract(spec);
  assert.ok(contract.methodNotAllowed, 'the spec has no x-method-not-allowed');
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!op || !op.responses) continue;
      assert.ok(Object.keys(op.responses).some((k) => /^2/.test(k)), `${method} ${template} has no 2XX`);
    }
  }
  let r;
  for (const f of fs.readdirSync(realDir).filter((x) => x.endsWith('.json')).sort()) {
    const x = JSON.parse(fs.readFileSync(path.join(realDir, f), 'utf8'));
    if (x.status === 405 && x.method !== 'HEAD') { r = x; break; }
  }
  assert.ok(r, 'the integration tests recorded no 405');
  assert.deepEqual(contract.check(r), []);
  const doctored = [
    ['Allow with a method more', { ...r, headers: { ...r.headers, allow: `${r.headers.allow}, PUT` } }],
    ['no Allow', { ...r, headers: { ...r.headers, allow: undefined } }],
    ['Cache-Control not no-store', { ...r, headers: { ...r.headers, 'cache-control': 'max-age=60' } }],
    ['answered 200', { ...r, status: 200 }],
  ];
  for (const [name, d] of doctored) {
    d.headers = Object.fromEntries(Object.entries(d.headers).filter(([, v]) => v !== undefined));
    assert.notDeepEqual(contract.check(d), [], `accepted: ${name}`);
  }
});
