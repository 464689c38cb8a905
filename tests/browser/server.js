// server.js - the real nqueensd for the browser tests: started on port 0 (the kernel picks a free
// one), its port read from the "listening" line it logs, stopped with SIGTERM.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const BUILD = process.env.NQ_BUILD_DIR || path.join(ROOT, 'build/release');
const NQUEENSD = process.env.NQ_NQUEENSD || path.join(BUILD, 'src/server/nqueensd');

// Start nqueensd with extra arguments; resolves {base, stop(), log()} once it listens.
function start(args = []) {
  const child = spawn(NQUEENSD, ['--port', '0', '--bind', '127.0.0.1', '--store', 'none', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      log += chunk;
      for (const line of log.split('\n')) {
        if (!line.includes('"msg":"listening"')) continue;
        const m = /"port":(\d+)/.exec(line);
        if (!m) continue;
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        child.stdout.on('data', (c) => { log += c; });
        child.stderr.on('data', (c) => { log += c; });
        resolve({
          base: `http://127.0.0.1:${m[1]}/`,
          log: () => log,
          stop: () => new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
        });
        return;
      }
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`nqueensd exited (${code}) before listening:\n${log}`)));
  });
}

module.exports = { start, ROOT, BUILD };
