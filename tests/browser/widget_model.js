/* A stand-in for a notebook front end's widget model, as anywidget hands it to a view's render({model, el}):
 * get, set (as ipywidgets.jslink sets a trait), on/off for "change:NAME". Used by tests/browser/test_widget.py and
 * benchmarks/bench.py to drive roofline.widget's view in headless Chromium. */
window.makeModel = (attrs) => {
  const handlers = {};
  return {
    get: (k) => attrs[k],
    set: (k, v) => { attrs[k] = v; (handlers["change:" + k] || []).slice().forEach((f) => f()); },
    on: (e, f) => { (handlers[e] = handlers[e] || []).push(f); },
    off: (e, f) => { handlers[e] = (handlers[e] || []).filter((g) => g !== f); },
    save_changes: () => {},
  };
};
