// Progressive enhancement for the calculator pages (/calc, /calc/compare, /calc/log):
// a form marked .live-form is sent to its data-fragment URL and the server's HTML replaces
// the result in place. The browser computes nothing; it only moves HTML and messages it is given.
(function () {
  "use strict";
  const announcer = document.getElementById("announce");

  function say(text) {
    if (!announcer || !text) return;
    announcer.textContent = "";
    window.setTimeout(() => { announcer.textContent = text; }, 50);
  }

  // The server's messages beside each input: an error marks it aria-invalid; a refusal is vLLM's
  // words, drawn by the server (refusalsHtml: input -> HTML).
  function markFields(form, errors, refusalsHtml) {
    form.querySelectorAll(".control[data-field]").forEach((control) => {
      const name = control.dataset.field;
      const id = control.dataset.id;
      const input = document.getElementById(id);
      const error = (errors || {})[name] || "";
      const errorBox = document.getElementById("err-" + id);
      if (errorBox) { errorBox.textContent = error; errorBox.hidden = !error; }
      if (input) {
        if (error) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
      }
      const refusalBox = document.getElementById("ref-" + id);
      if (refusalBox) {
        refusalBox.innerHTML = (refusalsHtml || {})[name] || "";
        refusalBox.hidden = !refusalBox.childElementCount;
      }
    });
  }

  function replaceTarget(id, html) {
    const old = document.getElementById(id);
    if (!old || typeof html !== "string") return;
    const holder = document.createElement("div");
    holder.innerHTML = html.trim();
    const fresh = holder.firstElementChild;
    if (fresh) old.replaceWith(fresh);
  }

  function bind(form) {
    form.dataset.bound = "1";  // tests wait for this before they type
    const target = form.dataset.target;
    const post = form.method.toLowerCase() === "post";
    let latest = null;
    let timer = null;

    async function update(options) {
      const mine = (latest = Symbol());
      const body = new FormData(form);
      const url = post ? form.dataset.fragment : form.dataset.fragment + "?" + new URLSearchParams(body);
      form.setAttribute("aria-busy", "true");
      try {
        const response = await fetch(url, post ? { method: "POST", body: body, headers: { Accept: "application/json" } }
          : { headers: { Accept: "application/json" } });
        const data = await response.json();
        if (mine !== latest) return;
        if (typeof data.output !== "string") throw new Error(data.error || "HTTP " + response.status);
        replaceTarget(target, data.output);
        const summary = document.getElementById("form-errors");  // the page load's summary; the fields now speak
        if (summary) summary.remove();
        markFields(form, data.errors || (data.error ? { log: data.error } : {}), data.refusals_html);
        if (data.url && window.history && window.history.replaceState) window.history.replaceState(null, "", data.url);
        if (options && options.focus) {
          const output = document.getElementById(target);
          if (output) output.focus();
        }
        say(data.announce);
      } catch (err) {
        if (mine === latest) {
          if (options && options.fallback) form.submit();
          else say("Could not reach the server to recalculate.");
        }
      } finally {
        if (mine === latest) form.removeAttribute("aria-busy");
      }
    }

    form.addEventListener("submit", (event) => {
      event.preventDefault();
      update({ focus: true, fallback: true });
    });
    if (!form.dataset.live) return;
    form.addEventListener("change", (event) => {
      if (event.target.type === "file") return;
      window.clearTimeout(timer);
      update({});
    });
    form.addEventListener("input", (event) => {
      if (event.target.tagName !== "INPUT" && event.target.tagName !== "TEXTAREA") return;
      window.clearTimeout(timer);
      timer = window.setTimeout(() => update({}), 500);
    });
  }

  // The config.json form takes the other inputs as they are now, not as the page was drawn; not
  // the ones that name a model (the server lists them: the config names the model instead).
  const configForm = document.getElementById("config-form");
  const calcForm = document.getElementById("calc-form");
  if (configForm && calcForm) {
    const modelFields = configForm.dataset.modelFields.split(" ");
    configForm.addEventListener("submit", () => {
      configForm.querySelectorAll("[data-carried]").forEach((field) => field.remove());
      for (const [name, value] of new FormData(calcForm)) {
        if (modelFields.includes(name) || value === "") continue;
        configForm.append(Object.assign(document.createElement("input"),
          { type: "hidden", name: name, value: value }));
        configForm.lastElementChild.dataset.carried = "1";
      }
    });
  }

  document.querySelectorAll("form.live-form").forEach(bind);
})();
