// The page's CSS, injected at start (the page has no stylesheet of its own).

const CSS = `
html, body { margin: 0; height: 100%; background: #f4f4f2; }
#mbconv-view { position: fixed; inset: 0; display: grid; grid-template-columns: minmax(0, 1fr) 360px;
  grid-template-rows: minmax(0, 1fr) auto auto; font: 13px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #222; }
#mbconv-view * { box-sizing: border-box; }
.mbconv-scene { grid-column: 1; grid-row: 1; position: relative; overflow: hidden; background: #e9eaec; }
.mbconv-scene canvas { display: block; width: 100%; height: 100%; outline: none; }
.mbconv-scene .mbconv-fallback { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
  padding: 2em; color: #733; text-align: center; }
.mbconv-legend { position: absolute; left: 8px; bottom: 6px; font-size: 11px; color: #555; pointer-events: none;
  background: rgba(255,255,255,.7); padding: 2px 6px; border-radius: 3px; }
.mbconv-bar { grid-column: 1; grid-row: 2; display: flex; align-items: center; gap: 8px; padding: 6px 10px;
  border-top: 1px solid #d4d4d0; background: #fbfbfa; }
.mbconv-bar button, .mbconv-panel button { font: inherit; padding: 2px 10px; border: 1px solid #bbb; border-radius: 4px;
  background: #fff; cursor: pointer; }
.mbconv-bar button:hover, .mbconv-panel button:hover { background: #f0f0ee; }
#mbconv-play { min-width: 64px; }
.mbconv-track { position: relative; flex: 1; display: flex; flex-direction: column; }
#mbconv-timeline { width: 100%; margin: 0; }
.mbconv-marks { position: relative; height: 8px; margin: 0 8px; }
.mbconv-worst-mark { position: absolute; top: 0; width: 0; height: 0; margin-left: -5px; border-left: 5px solid transparent;
  border-right: 5px solid transparent; border-bottom: 8px solid #c0392b; cursor: pointer; }
#mbconv-time { font-variant-numeric: tabular-nums; min-width: 120px; text-align: right; color: #444; }
.mbconv-plot { grid-column: 1; grid-row: 3; position: relative; height: 170px; border-top: 1px solid #d4d4d0; background: #fff; }
.mbconv-plot canvas { position: absolute; inset: 0; width: 100%; height: 100%; }
.mbconv-plot[hidden] { display: none; }
.mbconv-panel { grid-column: 2; grid-row: 1 / span 3; overflow: auto; border-left: 1px solid #d4d4d0; background: #fbfbfa; }
.mbconv-panel section { padding: 8px 12px; border-bottom: 1px solid #e2e2de; }
.mbconv-panel h1 { font-size: 14px; margin: 0 0 2px; word-break: break-all; }
.mbconv-panel h2 { font-size: 11px; text-transform: uppercase; letter-spacing: .05em; color: #666; margin: 0 0 6px; }
.mbconv-panel h3 { font-size: 12px; margin: 6px 0 3px; color: #444; }
.mbconv-sub { color: #666; font-size: 12px; }
.mbconv-toggles label { display: inline-flex; align-items: center; gap: 3px; margin: 0 10px 3px 0; cursor: pointer; }
.mbconv-verdict { display: inline-block; padding: 1px 7px; border-radius: 9px; font-weight: 600; font-size: 12px; color: #fff; background: #777; }
.mbconv-verdict.exact { background: #2e7d32; } .mbconv-verdict.explained { background: #9a7d0a; }
.mbconv-verdict.unexplained { background: #c0392b; } .mbconv-verdict.failed { background: #6d1b1b; }
.mbconv-message { margin: 6px 0; white-space: pre-wrap; word-break: break-word; }
.mbconv-panel ul { margin: 2px 0; padding-left: 18px; }
.mbconv-tree { max-height: 34vh; overflow: auto; }
.mbconv-tree-item { padding: 1px 4px; border-radius: 3px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.mbconv-tree-item:hover { background: #ececea; }
.mbconv-tree-item.selected, .mbconv-finding.selected { background: #ffe9b3; }
.mbconv-tree-item .k { color: #888; font-size: 11px; margin-right: 4px; }
.mbconv-tree-group > .mbconv-tree-children { margin-left: 12px; border-left: 1px dotted #ccc; padding-left: 4px; }
.mbconv-details table { border-collapse: collapse; font-size: 12px; width: 100%; }
.mbconv-details td { padding: 1px 4px; white-space: pre-line; vertical-align: top; border-bottom: 1px solid #eee; }
.mbconv-details td:first-child { color: #666; width: 34%; }
.mbconv-details .num { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 11px; white-space: pre; }
.mbconv-finding { padding: 3px 4px; border-radius: 3px; cursor: pointer; margin-bottom: 2px; }
.mbconv-finding:hover { background: #ececea; }
.mbconv-finding .sev { display: inline-block; min-width: 52px; font-size: 11px; font-weight: 600; text-transform: uppercase; }
.mbconv-finding .sev.error { color: #c0392b; } .mbconv-finding .sev.warning { color: #b9770e; } .mbconv-finding .sev.info { color: #2e6da4; }
.mbconv-finding .code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 11px; color: #555; }
.mbconv-finding .where { color: #888; font-size: 11px; }
.mbconv-empty { color: #888; font-style: italic; }
select { font: inherit; }
`;

export function injectStyle() {
  const style = document.createElement('style');
  style.textContent = CSS;
  document.head.appendChild(style);
}
