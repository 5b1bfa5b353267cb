// The interview console. Every control is a plain form that works without this script; the
// script sends each action as JSON (with the CSRF token in X-CSRFToken) and keeps the page to
// the server's state, fetched every second, so a second tab shows the same. Every text it shows
// comes from that state (its *_text fields: the clocks, the status, the note times), so it reads
// as the page without the script reads. Text that people typed is only ever set as textContent.
(function () {
  "use strict";
  var root = document.querySelector("[data-console]");
  if (!root) return;
  document.documentElement.classList.add("js");

  var base = root.dataset.base;
  var cardId = root.dataset.card;
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var notSaved = root.dataset.notSaved; // the page's word for an action the server refused
  var state = null;
  var pending = new Set(); // actions on their way: a poll must not undo what the interviewer just did

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
    return request(base + "/state", { method: "GET" }).then(function (s) { if (!pending.size) apply(s); });
  }

  function post(url, data, retried) {
    var mine = {};
    pending.add(mine);
    return request(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(data)
    }).then(function (s) {
      pending.delete(mine);
      apply(s);
      return s;
    }, function (error) {
      pending.delete(mine);
      if (!retried && error && error.status === 400 && /CSRF/i.test(error.error || "")) {
        // The token expired (an interview can outlast it): fetch a fresh one and send again.
        return refresh().then(function () { return post(url, data, true); });
      }
      announce(notSaved + ": " + ((error && error.error) || "the server did not answer") + ".");
      throw error;
    });
  }

  // ------------------------------------------------------------ showing the state

  // The clocks move with each state the server sends (every second while the page is in view).
  function showClocks(s) {
    var session = q('[data-timer="session"]');
    if (session) session.textContent = s.elapsed_text;
    s.cards.forEach(function (c) {
      var el = q('[data-timer-card="' + c.id + '"]');
      if (el) el.textContent = c.time_text;
    });
  }

  function apply(s) {
    if (state && s.version < state.version) return; // an older answer overtaken by a newer one
    state = s;
    if (s.csrf_token) csrf = s.csrf_token;
    var ended = s.status === "ended";
    var status = q("[data-status]");
    status.textContent = s.status_text;
    status.className = "status status-" + s.status;
    q("[data-ended-banner]").hidden = !ended;
    qa("[data-action=end] button, [data-action=show] button").forEach(function (b) { b.disabled = ended; });
    s.cards.forEach(function (c) {
      var badge = q('[data-on-screen="' + c.id + '"]');
      if (badge) badge.hidden = !(s.current === c.id && !ended);
      var count = q('[data-score-count="' + c.id + '"]');
      if (count) count.textContent = c.scored_text;
    });
    var card = s.cards.filter(function (c) { return c.id === cardId; })[0];
    var show = q("[data-show]");
    if (show) show.hidden = s.current === cardId || ended;
    var showing = q("[data-showing]");
    if (showing) showing.hidden = !(s.current === cardId && !ended);
    if (card) applyCard(card, ended);
    renderNotes(s);
    q("[data-scratch]").textContent = s.scratch;
    q("[data-scratch-at]").textContent = s.scratch_at_text;
    qa('input[name="recommendation"]').forEach(function (r) { r.checked = r.value === s.recommendation; });
    var reason = document.getElementById("reason");
    if (reason && document.activeElement !== reason && !reasonTimer) reason.value = s.reason;
    showClocks(s);
  }

  function applyCard(card, ended) {
    qa("[data-reveal]").forEach(function (b) { b.hidden = Boolean(card.reveals[b.dataset.reveal]) || ended; });
    qa("[data-shown-at]").forEach(function (el) { el.textContent = card.shown_text[el.dataset.shownAt] || ""; });
    qa("[data-score]").forEach(function (set) {
      var value = card.scores[set.dataset.score];
      set.querySelectorAll('button[name="score"]').forEach(function (b) {
        if (b.value) b.setAttribute("aria-pressed", String(b.value === String(value)));
      });
    });
    qa("[data-signal]").forEach(function (box) { box.checked = card.signals.indexOf(box.dataset.signal) >= 0; });
  }

  // Each note is a copy of the page's <template id="note-template"> (the markup the page draws a
  // note with, its delete form included), filled with the note's fields from the state.
  var notesShown = null;
  var noteTemplate = document.getElementById("note-template");
  function renderNotes(s) {
    var signature = JSON.stringify(s.notes.map(function (n) { return [n.id, n.text, n.at_text, n.card_text]; }));
    if (signature === notesShown) return;
    notesShown = signature;
    var list = q("[data-notes]");
    list.textContent = "";
    s.notes.forEach(function (note) {
      var item = noteTemplate.content.firstElementChild.cloneNode(true);
      item.dataset.note = note.id;
      item.querySelector(".note-time").textContent = note.at_text;
      var card = item.querySelector(".note-card");
      if (note.card_text) card.textContent = note.card_text;
      else card.remove();
      item.querySelector("input[name=note]").value = note.id;
      item.querySelector(".note-text").textContent = note.text;
      list.appendChild(item);
    });
    q("[data-no-notes]").hidden = s.notes.length > 0;
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
    if (action === "recommendation") return saveRecommendation();
    if (action === "note") return addNote(form, data, url);
    if (action === "end") {
      // The reason may still be waiting to be saved: it goes with the end.
      clearTimeout(reasonTimer);
      reasonTimer = null;
      var choice = fields(q("form[data-action=recommendation]"), null);
      data = { recommendation: choice.recommendation || null, reason: choice.reason || "" };
    }
    post(url, data).then(function (s) {
      if (action === "end") window.location.href = base + "/report";
      if (action === "reveal") announce(shownText(s, data.card, data.stage));
    }).catch(function () {});
  });

  // "On the candidate's screen since …", as the state says it of a stage just revealed.
  function shownText(s, card, stage) {
    var shown = s.cards.filter(function (c) { return c.id === card; })[0];
    return (shown && shown.shown_text[stage]) || "";
  }

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
    var copy = event.target.closest("[data-copy]");
    if (copy) copyLink(copy);
  });

  function copyLink(button) {
    var input = document.getElementById(button.dataset.copy);
    input.select();
    var label = button.textContent; // the page's word for it, put back after a moment
    var done = function () { button.textContent = "Copied"; setTimeout(function () { button.textContent = label; }, 2000); };
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
      .then(function (s) { saved.textContent = "Saved " + s.server_clock; }, function () {
        saved.textContent = notSaved;
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
})();
