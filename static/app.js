// Progressive enhancement for card pages: reveal in place and recalculate live.
// Every number, sentence and link comes from the server; this script only moves what it is given.
(function () {
  "use strict";
  const page = document.querySelector(".card-page");
  if (!page) return;
  const cardId = page.dataset.card;
  const announce = document.getElementById("announce");
  const calcForm = document.getElementById("calc-form");
  // The latest request that may redraw the stages; an older answer arriving late is dropped.
  let pending = null;

  function scenarioQuery() {
    const params = new URLSearchParams(new FormData(calcForm));
    return params.toString();
  }

  function say(text) {
    if (!announce) return;
    announce.textContent = "";
    window.setTimeout(() => { announce.textContent = text; }, 50);
  }

  function replaceOuter(id, html) {
    const old = document.getElementById(id);
    if (!old || html === undefined) return null;
    const holder = document.createElement("div");
    holder.innerHTML = html.trim();
    const fresh = holder.firstElementChild;
    if (!fresh) return null;
    old.replaceWith(fresh);
    return fresh;
  }

  // An error sits beside its field, in the reader's words; the card above falls back to its
  // own scenario, which the server's notice says (the old numbers never stay as if they were current).
  function showError(error, notice) {
    document.querySelectorAll("#controls .field-error.live").forEach((p) => p.remove());
    document.querySelectorAll("#controls [aria-invalid]").forEach((field) => {
      field.removeAttribute("aria-invalid");
      field.removeAttribute("aria-describedby");
      field.closest(".control").classList.remove("invalid");
    });
    replaceOuter("scenario-error", notice);
    if (!error) return;
    const field = error.field && document.getElementById("in-" + error.field);
    if (field && !document.getElementById("err-" + error.field)) {
      const note = document.createElement("p");
      note.className = "field-error live";
      note.id = "err-" + error.field;
      note.textContent = error.message;
      field.insertAdjacentElement("afterend", note);
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", note.id);
      field.closest(".control").classList.add("invalid");
    }
  }

  function apply(data, options) {
    showError(data.error, data.notice);
    document.getElementById("question-text").innerHTML = data.question;
    // A half-typed answer and working survive a recalculation (their section is replaced).
    const typing = keepTyping(["answer", "working"]);
    for (const [name, html] of Object.entries(data.stages)) {
      const section = replaceOuter("stage-" + name, html);
      if (section) {
        bindReveal(section.querySelector("form.reveal"));
        bindFollowupMark(section.querySelector("form.followup-mark"));
      }
    }
    typing.restore();
    document.getElementById("derivations").innerHTML = data.derivations;
    document.getElementById("held").innerHTML = data.held;
    // The controls are redrawn when the scenario's shape changes (a variant, the pool's rule,
    // the model's dtypes) but not while the reader types in them.
    if (options.controls) document.getElementById("controls").innerHTML = data.controls;
    if (data.url && window.history && window.history.replaceState) {
      window.history.replaceState(null, "", data.url);
    }
    if (data.focus) {
      const target = document.getElementById("content-" + data.focus);
      if (target) target.focus();
    }
    say(data.announce);
  }

  // The values of the answer boxes with these ids, and where the focus was: restore() puts
  // them back into the boxes that replaced them.
  function keepTyping(ids) {
    const kept = ids.map((id) => {
      const box = document.getElementById(id);
      return { id: id, value: box ? box.value : null, focused: !!box && document.activeElement === box };
    });
    return {
      restore() {
        for (const { id, value, focused } of kept) {
          const box = document.getElementById(id);
          if (!box || value === null) continue;
          box.value = value;
          if (focused) box.focus();
        }
      },
    };
  }

  // A card fragment answers 400 with the card's own scenario and an error; anything else
  // that is not a fragment (404, 409, 500, a proxy's page) is a failure the caller handles.
  async function fetchJSON(url, init) {
    const response = await fetch(url, Object.assign({ headers: { Accept: "application/json" } }, init || {}));
    const data = await response.json();
    if (!data || !data.stages) {
      const failure = new Error((data && data.error) || "HTTP " + response.status);
      failure.status = response.status;
      throw failure;
    }
    return data;
  }

  // A reveal the server refuses (409: a stage opened out of order) says why beside its button.
  function showRefusal(form, message) {
    let note = form.querySelector(".refused");
    if (!note) {
      note = Object.assign(document.createElement("p"), { className: "notice error refused" });
      note.setAttribute("role", "alert");
      form.appendChild(note);
    }
    note.textContent = message;
  }

  function bindReveal(form) {
    if (!form || form.dataset.bound) return;
    form.dataset.bound = "1";
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const action = form.getAttribute("action").split("?")[0] + "?" + scenarioQuery();
      pending = Symbol();  // a recalculation still in flight must not undo this reveal
      try {
        const data = await fetchJSON(action, { method: "POST", body: new FormData(form) });
        apply(data, { force: true });
      } catch (err) {
        if (err.status === 409) showRefusal(form, err.message);
        else form.submit();
      }
    });
  }

  // "I knew it" / "I did not": recorded through the progress API, without leaving the page.
  function bindFollowupMark(form) {
    if (!form || form.dataset.bound) return;
    form.dataset.bound = "1";
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = event.submitter ? event.submitter.value : "knew";
      const stage = form.closest("section").dataset.stage;
      const idField = form.querySelector("input[name=event_id]");
      const body = { event_id: idField.value, card_id: cardId, kind: "followup", stage: stage, value: value };
      try {
        const response = await fetch("/api/progress/events", {
          method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json" },
          body: JSON.stringify(body),
        });
        if (!response.ok) throw new Error((await response.json()).error);
        let note = form.querySelector("p.muted");
        if (!note) { note = document.createElement("p"); note.className = "muted"; form.prepend(note); }
        note.textContent = form.dataset[value === "knew" ? "markedKnew" : "markedMissed"];
        // A new id for the next mark (randomUUID needs a secure context; getRandomValues does not).
        idField.value = crypto.randomUUID ? crypto.randomUUID() : crypto.getRandomValues(new Uint32Array(4)).join("-");
        say("Recorded.");
      } catch (err) {
        // Fall back to the plain form post, which carries the same event id.
        form.appendChild(Object.assign(document.createElement("input"), { type: "hidden", name: "value", value: value }));
        form.submit();
      }
    });
  }

  async function recalculate(query, options) {
    const mine = (pending = Symbol());
    try {
      const data = await fetchJSON("/cards/" + encodeURIComponent(cardId) + "/fragment?" + query);
      if (mine === pending) apply(data, options || {});
    } catch (err) {
      say("Could not reach the server to recalculate.");
    }
  }

  document.querySelectorAll("form.reveal").forEach(bindReveal);
  document.querySelectorAll("form.followup-mark").forEach(bindFollowupMark);

  if (calcForm) {
    let timer = null;
    calcForm.addEventListener("change", (event) => {
      const reshapes = event.target.tagName === "SELECT";
      recalculate(scenarioQuery(), { controls: reshapes });
    });
    calcForm.addEventListener("input", (event) => {
      if (event.target.tagName !== "INPUT") return;
      window.clearTimeout(timer);
      timer = window.setTimeout(() => recalculate(scenarioQuery()), 400);
    });
    calcForm.addEventListener("submit", (event) => {
      event.preventDefault();
      recalculate(scenarioQuery());
    });
  }

  // Reset and Another variant replace the controls too: they change several inputs at once.
  for (const id of ["reset-scenario", "next-variant"]) {
    const link = document.getElementById(id);
    if (!link) continue;
    link.addEventListener("click", async (event) => {
      event.preventDefault();
      const url = new URL(link.href, window.location.href);
      const mine = (pending = Symbol());
      try {
        const data = await fetchJSON("/cards/" + encodeURIComponent(cardId) + "/fragment?" + url.searchParams);
        if (mine !== pending) return;
        apply(data, { controls: true, force: true });
        updateVariantLinks(data);
      } catch (err) {
        window.location.href = link.href;
      }
    });
  }

  // The scenario's variant goes with the calculator's form; "Another variant" goes where the server says.
  function updateVariantLinks(data) {
    const hidden = calcForm.querySelector("input[name=variant]");
    if (data.variant === null) {
      if (hidden) hidden.remove();
    } else {
      const field = hidden || calcForm.appendChild(Object.assign(document.createElement("input"),
        { type: "hidden", name: "variant" }));
      field.value = data.variant;
    }
    const next = document.getElementById("next-variant");
    if (next) next.href = data.next_variant_url;
  }
})();
