#!/bin/sh
# Headless Chromium screenshot of a page (WebGL through SwiftShader): dev/shot.sh PAGE.html OUT.png [--dump-dom]
page=$(realpath "$1"); out=$(realpath -m "$2"); shift 2
dir=$(mktemp -d)
chromium --headless --no-sandbox --use-angle=swiftshader --enable-unsafe-swiftshader \
  --disable-background-networking --disable-component-update --no-first-run --disable-sync \
  --user-data-dir="$dir" --window-size=1400,900 --virtual-time-budget=4000 \
  --screenshot="$out" "$@" "file://$page"
rm -rf "$dir"
