// window.mbconvView: the hooks tests read (docs/view-data.md, "Hooks for tests").

export const hooks = {
  ready: false,
  errors: [],
  renderedFrames: 0,
  firstFrameMs: null,
  bodyCount: 0,
  ghostBodyCount: 0,
  selected: null,
  time: 0,
  playing: false,
  select() {},
  play() {},
  pause() {},
  seek() {},
};

export function installHooks() {
  window.mbconvView = hooks;
  window.addEventListener('error', (e) => {
    record(e.error || e.message);
  });
  window.addEventListener('unhandledrejection', (e) => record(e.reason));
}

export function record(err, where) {
  const msg = (where ? where + ': ' : '') + (err && err.message ? err.message : String(err));
  hooks.errors.push(msg);
  console.error('mbconv view:', msg, err && err.stack ? err.stack : '');
}

// Runs f, recording (not throwing) what it throws.
export function guard(where, f) {
  try {
    return f();
  } catch (e) {
    record(e, where);
    return undefined;
  }
}
