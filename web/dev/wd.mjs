// Drives the page in headless Chromium through chromedriver (real time, no virtual time):
//   node dev/wd.mjs PAGE.html 'JS returning a value' ...   (each script runs after the previous;
//   a number argument sleeps that many ms). Prints each script's result.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const [page, ...steps] = process.argv.slice(2);
const port = 9515 + Math.floor(Math.random() * 400);
const driver = spawn('chromedriver', [`--port=${port}`], { stdio: 'ignore' });
const base = `http://127.0.0.1:${port}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function call(method, path, body) {
  const r = await fetch(base + path, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const j = await r.json();
  if (j.value && j.value.error) throw new Error(j.value.message);
  return j.value;
}
try {
  for (let i = 0; i < 50; i++) { try { await call('GET', '/status'); break; } catch { await sleep(100); } }
  const s = await call('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': { args: [
    '--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--window-size=1400,900',
    `--user-data-dir=${mkdtempSync(join(tmpdir(), 'wd-'))}`] } } } });
  const id = s.sessionId;
  const t0 = Date.now();
  await call('POST', `/session/${id}/url`, { url: 'file://' + resolve(page) });
  console.log(`loaded in ${Date.now() - t0} ms`);
  for (const step of steps) {
    if (/^\d+$/.test(step)) { await sleep(+step); continue; }
    const v = await call('POST', `/session/${id}/execute/sync`, { script: step, args: [] });
    console.log(JSON.stringify(v));
  }
  await call('DELETE', `/session/${id}`);
} finally {
  driver.kill();
}
