// Wraps a data file and the bundle into a page like the one `mbconv view` writes:
//   node dev/make-page.mjs DATA.json OUT.html [BUNDLE.js]
import { readFileSync, writeFileSync } from 'node:fs';

const argv = process.argv.slice(2);
// --probe: after 2 s, write window.mbconvView as JSON into <pre id="mbconv-probe"> (for
// `chromium --headless --dump-dom`); --probe-js CODE: run CODE first (e.g. clicks).
const probeAt = argv.indexOf('--probe');
const probe = probeAt >= 0 ? argv.splice(probeAt, 1) : null;
const jsAt = argv.indexOf('--probe-js');
const probeJs = jsAt >= 0 ? argv.splice(jsAt, 2)[1] : '';
const [data, out, bundle = new URL('../dist/view.js', import.meta.url).pathname] = argv;
if (!data || !out) {
  console.error('usage: node dev/make-page.mjs [--probe [--probe-js CODE]] DATA.json OUT.html [BUNDLE.js]');
  process.exit(2);
}
const esc = (s) => s.replaceAll('</', '<\\/');
const json = JSON.stringify(JSON.parse(readFileSync(data, 'utf8')));
const js = readFileSync(bundle, 'utf8');
const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mbconv view</title>
</head>
<body>
<div id="mbconv-view"></div>
<script type="application/json" id="mbconv-view-data">${esc(json)}</script>
<script>${esc(js)}</script>
${probe ? `<script>setTimeout(() => { ${probeJs}; setTimeout(() => { const v = window.mbconvView; const p = document.createElement('pre'); p.id = 'mbconv-probe'; p.textContent = JSON.stringify(v); document.body.append(p); }, 500); }, 1500);</script>\n` : ''}</body>
</html>
`;
writeFileSync(out, page);
console.log(`${out}: ${page.length} bytes`);
