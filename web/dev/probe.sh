#!/bin/sh
# Runs CODE in the page made from DATA, then prints window.mbconvView (and document.title):
#   dev/probe.sh DATA.json 'CODE' [OUT.png]
data=$1; code=$2; shot=$3
here=$(dirname "$0")
page=$(mktemp --suffix=.html)
node "$here/make-page.mjs" --probe --probe-js "$code" "$data" "$page" >/dev/null
dir=$(mktemp -d)
flags="--headless --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader --disable-background-networking --disable-component-update --no-first-run --disable-sync --window-size=1400,900 --virtual-time-budget=5000"
chromium $flags --user-data-dir="$dir" --dump-dom "file://$page" 2>/dev/null | grep -o '<title>.*</title>\|<pre id="mbconv-probe">.*</pre>'
if [ -n "$shot" ]; then rm -rf "$dir"; dir=$(mktemp -d); chromium $flags --user-data-dir="$dir" --screenshot="$(realpath -m "$shot")" "file://$page" 2>/dev/null; fi
rm -rf "$dir" "$page"
