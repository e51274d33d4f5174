/* The notebook's live figure (roofline.widget): the page's figure, mounted by roofline-live.js, its state set by
 * the ipywidgets controls through the view's traits (s_NAME: a choice's or a stop's index, a box's value), which
 * ipywidgets.jslink keeps equal to the controls' in the browser. A change redraws here, with no kernel. */
const PREFIX = "s_";
const GEN = window.RooflineGenerated, MOUNT = window.rooflineLive.mount;  // this module's, as it loaded

function settingsOf(model, spec) {
  const out = {};
  spec.controls.forEach((c) => {
    const v = model.get(PREFIX + c.name);
    out[c.name] = c.kind === "check" ? !!v : (c.kind === "select" ? c.options : c.grid)[v];
  });
  return out;
}

function render({model, el}) {
  const key = model.get("figure"), spec = GEN.figures[key];
  const root = document.createElement("div");
  root.className = "roofline-live";
  root.dataset.figure = key;
  el.appendChild(root);
  const entry = MOUNT(root, {embedded: true, state: settingsOf(model, spec)});
  const follow = () => entry.set(settingsOf(model, spec));
  spec.controls.forEach((c) => model.on(`change:${PREFIX}${c.name}`, follow));
  return () => spec.controls.forEach((c) => model.off(`change:${PREFIX}${c.name}`, follow));
}

export default {render};
