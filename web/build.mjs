// Bundles src/main.js into one minified IIFE (a classic script the `mbconv view` page inlines).
// Output: $MBCONV_VIEW_OUT, default dist/view.js (relative to this folder).
import { build, transform } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.env.MBCONV_VIEW_OUT || resolve(here, 'dist/view.js'));

const result = await build({
  entryPoints: [resolve(here, 'src/main.js')],
  outfile: out,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  platform: 'browser',
  legalComments: 'eof',
  charset: 'utf8',
  metafile: true,
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs)[0].bytes;
// The page inlines the bundle with `</` written `<\/`: check that the code still parses so.
const code = readFileSync(out, 'utf8');
if (code.includes('</')) await transform(code.replaceAll('</', '<\\/'), { loader: 'js', minify: false });
console.log(`${out}: ${bytes} bytes`);
