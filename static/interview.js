// The interview console. Every control is a plain form that works without this script; the
// script sends each action as JSON (with the CSRF token in X-CSRFToken) and keeps the page to
// the server's state, fetched every second, so a second tab shows the same. The clocks only
// display the server's elapsed times. Text that people typed is only ever set as textContent.
(function () {
  "use strict";
  var root = document.querySelector("[data-console]");
  if (!root) return;
  document.documentElement.classList.add("js");

  var base = root.dataset.base;
  var cardId = root.dataset.card;
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var state = null;
  var fetchedAt = 0; // performance.now() when `state` arrived
  var pending = 0; // actions on their way: a poll must not undo what the interviewer just did
  var STATUS = { waiting: "Not started", live: "Live", ended: "Ended" };

  function q(selector) { return root.querySelector(selector); }
  function qa(selector) { return Array.prototype.slice.call(root.querySelectorAll(selector)); }
  function announce(text) { var el = document.getElementById("announce"); if (el) el.textContent = text; }

  // ------------------------------------------------------------ talking to the server

  function request(url, options) {
    options.credentials = "same-origin";
    options.headers = Object.assign({ Accept: "application/json" }, options.headers || {});
    return fetch(url, options).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (!response.ok) { body.status = response.status; throw body; }
        return body;
      });
    });
  }

  function refresh() {
    return request(base + "/state", { method: "GET" }).then(function (s) { if (!pending) apply(s); });
  }

  function post(url, data, retried) {
    pending += 1;
    return request(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(data)
    }).then(function (s) {
      pending -= 1;
      apply(s);
      return s;
    }, function (error) {
      pending -= 1;
      if (!retried && error && error.status === 400 && /CSRF/i.test(error.error || "")) {
        // The token expired (an interview can outlast it): fetch a fresh one and send again.
        return refresh().then(function () { return post(url, data, true); });
      }
      announce("Not saved: " + ((error && error.error) || "the server did not answer") + ".");
      throw error;
    });
  }

  // ------------------------------------------------------------ showing the state

  function clock(at) {
    if (!at) return "";
    var text = at.slice(11, 19) + " UTC";
    if (state && state.started_at) {
      var seconds = Math.max(0, Math.floor((Date.parse(at) - Date.parse(state.started_at)) / 1000));
      text += " (+" + Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0") + ")";
    }
    return text;
  }

  function duration(ms) {
    var seconds = Math.floor(ms / 1000);
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor(seconds / 60) % 60;
    var rest = String(seconds % 60).padStart(2, "0");
    return hours ? hours + ":" + String(minutes).padStart(2, "0") + ":" + rest : minutes + ":" + rest;
  }

  function tick() {
    if (!state) return;
    var extra = performance.now() - fetchedAt;
    var live = state.status === "live";
    var session = q('[data-timer="session"]');
    if (session) session.textContent = duration(state.elapsed_ms + (live ? extra : 0));
    state.cards.forEach(function (c) {
      var el = q('[data-timer-card="' + c.id + '"]');
      if (el) el.textContent = duration(c.time_ms + (live && state.current === c.id ? extra : 0));
    });
  }

  function apply(s) {
    if (state && s.version < state.version) return; // an older answer overtaken by a newer one
    state = s;
    fetchedAt = performance.now();
    if (s.csrf_token) csrf = s.csrf_token;
    var ended = s.status === "ended";
    var status = q("[data-status]");
    status.textContent = STATUS[s.status];
    status.className = "status status-" + s.status;
    q("[data-ended-banner]").hidden = !ended;
    qa("[data-action=end] button, [data-action=show] button").forEach(function (b) { b.disabled = ended; });
    s.cards.forEach(function (c) {
      var badge = q('[data-on-screen="' + c.id + '"]');
      if (badge) badge.hidden = !(s.current === c.id && !ended);
      var count = q('[data-score-count="' + c.id + '"]');
      var scored = Object.keys(c.scores).length;
      if (count) count.textContent = scored ? scored + " scored" : "";
    });
    var card = s.cards.filter(function (c) { return c.id === cardId; })[0];
    var show = q("[data-show]");
    if (show) show.hidden = s.current === cardId || ended;
    var showing = q("[data-showing]");
    if (showing) showing.hidden = !(s.current === cardId && !ended);
    if (card) applyCard(card, ended);
    renderNotes(s);
    q("[data-scratch]").textContent = s.scratch;
    q("[data-scratch-at]").textContent = s.scratch_at ? "Updated " + clock(s.scratch_at) : "Nothing typed yet.";
    qa('input[name="recommendation"]').forEach(function (r) { r.checked = r.value === s.recommendation; });
    var reason = document.getElementById("reason");
    if (reason && document.activeElement !== reason && !reasonTimer) reason.value = s.reason;
    tick();
  }

  function applyCard(card, ended) {
    qa("[data-reveal]").forEach(function (b) { b.hidden = Boolean(card.reveals[b.dataset.reveal]) || ended; });
    qa("[data-shown-at]").forEach(function (el) {
      var at = card.reveals[el.dataset.shownAt];
      el.textContent = at ? "On the candidate's screen since " + clock(at) : "";
    });
    qa("[data-score]").forEach(function (set) {
      var value = card.scores[set.dataset.score];
      set.querySelectorAll('button[name="score"]').forEach(function (b) {
        if (b.value) b.setAttribute("aria-pressed", String(Number(b.value) === value));
      });
    });
    qa("[data-signal]").forEach(function (box) { box.checked = card.signals.indexOf(box.dataset.signal) >= 0; });
  }

  var notesShown = null;
  function renderNotes(s) {
    var signature = JSON.stringify(s.notes.map(function (n) { return [n.id, n.text, n.at]; }));
    if (signature === notesShown) return;
    notesShown = signature;
    var numbers = {};
    s.cards.forEach(function (c) { numbers[c.id] = c.number; });
    var list = q("[data-notes]");
    list.textContent = "";
    s.notes.forEach(function (note) {
      var item = document.createElement("li");
      var head = document.createElement("div");
      head.className = "note-head";
      item.dataset.note = note.id;
      head.appendChild(span("note-time", clock(note.at)));
      if (note.card) head.appendChild(span("note-card", "card " + (numbers[note.card] || "?")));
      var remove = document.createElement("button");
      remove.type = "button";
      remove.className = "link-button";
      remove.dataset.deleteNote = note.id;
      remove.setAttribute("aria-label", "Delete this note");
      remove.textContent = "Delete";
      head.appendChild(remove);
      item.appendChild(head);
      item.appendChild(span("note-text", note.text));
      list.appendChild(item);
    });
    q("[data-no-notes]").hidden = s.notes.length > 0;
  }

  function span(className, text) {
    var el = document.createElement("span");
    el.className = className;
    el.textContent = text;
    return el;
  }

  // ------------------------------------------------------------ the controls

  function fields(form, submitter) {
    var data = {};
    new FormData(form).forEach(function (value, key) { data[key] = value; });
    if (submitter && submitter.name) data[submitter.name] = submitter.value;
    delete data.csrf_token;
    delete data.view;
    return data;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-action]");
    if (!form || !root.contains(form)) return;
    event.preventDefault();
    var action = form.dataset.action;
    var data = fields(form, event.submitter);
    var url = form.getAttribute("action");
    if (action === "signals") return; // each tick is sent as it changes
    if (action === "score") data.score = data.score === "" ? null : Number(data.score);
    if (action === "delete-note") data.note = Number(data.note);
    if (action === "recommendation") return saveRecommendation();
    if (action === "note") return addNote(form, data, url);
    if (action === "end") {
      // The reason may still be waiting to be saved: it goes with the end.
      clearTimeout(reasonTimer);
      reasonTimer = null;
      var choice = fields(q("form[data-action=recommendation]"), null);
      data = { recommendation: choice.recommendation || null, reason: choice.reason || "" };
    }
    post(url, data).then(function () {
      if (action === "end") window.location.href = base + "/report";
      if (action === "reveal") announce("Shown to the candidate.");
    }).catch(function () {});
  });

  root.addEventListener("change", function (event) {
    var box = event.target.closest("[data-signal]");
    if (box) {
      post(base + "/signal", { card: cardId, signal: box.dataset.signal, heard: box.checked }).catch(function () {
        box.checked = !box.checked;
      });
    }
    if (event.target.name === "recommendation") saveRecommendation();
  });

  root.addEventListener("click", function (event) {
    var remove = event.target.closest("[data-delete-note]");
    if (remove) post(base + "/note/delete", { note: Number(remove.dataset.deleteNote) }).catch(function () {});
    var copy = event.target.closest("[data-copy]");
    if (copy) copyLink(copy);
  });

  function copyLink(button) {
    var input = document.getElementById(button.dataset.copy);
    input.select();
    var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = "Copy"; }, 2000); };
    if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, function () {});
    else if (document.execCommand("copy")) done();
  }

  // Notes: Enter saves the note with the time; leaving the box with text in it saves it too.
  var noteText = document.getElementById("note-text");
  function addNote(form, data, url) {
    if (!data.text || !data.text.trim()) return;
    noteText.value = "";
    post(url, data).then(function () { announce("Note saved."); }, function () {
      if (!noteText.value) noteText.value = data.text;
    });
  }
  if (noteText) {
    noteText.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        noteText.form.requestSubmit();
      }
    });
    noteText.addEventListener("blur", function () { if (noteText.value.trim()) noteText.form.requestSubmit(); });
  }
  window.addEventListener("beforeunload", function (event) {
    if ((noteText && noteText.value.trim()) || reasonTimer) event.preventDefault();
  });

  // The recommendation saves as it changes; the reason a moment after typing stops.
  var reasonTimer = null;
  var saved = q("#recommendation [data-saved]");
  function saveRecommendation() {
    clearTimeout(reasonTimer);
    reasonTimer = null;
    var form = q("form[data-action=recommendation]");
    var data = fields(form, null);
    post(form.getAttribute("action"), { recommendation: data.recommendation || null, reason: data.reason || "" })
      .then(function (s) { saved.textContent = "Saved " + s.server_time.slice(11, 19) + " UTC"; }, function () {
        saved.textContent = "Not saved";
      });
  }
  var reason = document.getElementById("reason");
  if (reason) {
    reason.addEventListener("input", function () {
      clearTimeout(reasonTimer);
      saved.textContent = "Saving…";
      reasonTimer = setTimeout(saveRecommendation, 700);
    });
  }

  // ------------------------------------------------------------ keeping up

  function poll() {
    var wait = document.hidden ? 5000 : 1000;
    refresh().catch(function () {}).then(function () { setTimeout(poll, wait); });
  }
  poll();
  setInterval(tick, 1000);
})();
