// The candidate's screen. The server sends the screen's HTML (the question and the stages the
// interviewer revealed, nothing else) over Server-Sent Events, with what a screen reader is told
// of each change; when the stream is down the page asks /state every second instead. The
// scratch box is sent a moment after typing stops.
(function () {
  "use strict";
  var root = document.querySelector("[data-candidate]");
  if (!root) return;
  document.documentElement.classList.add("js");

  var base = root.dataset.base;
  var csrf = document.querySelector('meta[name="csrf-token"]').content;
  var screen = document.getElementById("screen");
  var connection = document.querySelector("[data-connection]");
  var scratch = document.getElementById("scratch");
  var saved = document.querySelector("[data-saved]");
  var shown = { version: Number(root.dataset.version), status: root.dataset.status, number: root.dataset.number,
                stages: root.dataset.stages ? root.dataset.stages.split(" ") : [] };
  var stream = null;
  var said = {}; // the latest state's announcements

  function announce(text) { document.getElementById("announce").textContent = text; }

  function apply(state) {
    said = state.announce;
    if (state.status !== "ended") connection.textContent = "Live";
    if (state.version < shown.version || (state.version === shown.version && state.status === shown.status)) return;
    var sameCard = String(state.number) === String(shown.number);
    var added = state.revealed.filter(function (s) { return !sameCard || shown.stages.indexOf(s) < 0; });
    screen.innerHTML = state.html; // the server's own rendering of card_view
    shown = { version: state.version, status: state.status, number: String(state.number), stages: state.revealed };
    if (state.status === "ended") {
      announce(said.ended);
      scratch.readOnly = true;
      connection.textContent = "";
      if (stream) stream.close();
      return;
    }
    if (!sameCard && state.number) announce(said.card);
    else if (added.length) announce(added.map(function (stage) { return said.stages[stage]; }).join(" "));
    var last = added.length && document.getElementById("shown-" + added.at(-1));
    var typing = document.activeElement === scratch;
    if (last && !typing) last.scrollIntoView({ block: "nearest", behavior: "smooth" });
    if (!sameCard && !typing) screen.focus({ preventScroll: false });
  }

  function poll() {
    return fetch(base + "/state", { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : Promise.reject(response); })
      .then(function (state) { if (state.csrf_token) csrf = state.csrf_token; apply(state); }, function (error) {
        connection.textContent = "Reconnecting…";
        throw error;
      });
  }

  function connect() {
    if (!window.EventSource) return;
    stream = new EventSource(base + "/events");
    stream.addEventListener("state", function (event) { apply(JSON.parse(event.data)); });
    stream.onopen = function () { connection.textContent = "Live"; };
  }

  // Polling while the stream is not open (and every ten seconds anyway), so the screen is never stale.
  function pollNow() { if (shown.status !== "ended") poll().catch(function () {}); }
  setInterval(function () { if (!stream || stream.readyState !== 1) pollNow(); }, 1000);
  setInterval(pollNow, 10000);
  if (shown.status !== "ended") connect();

  // ------------------------------------------------------------ the scratch box

  var timer = null;
  var sending = false;
  var again = false;
  function send(retried) {
    if (sending) { again = true; return; }
    sending = true;
    fetch(base + "/scratch", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify({ text: scratch.value })
    }).then(function (response) {
      sending = false;
      if (response.ok) {
        saved.textContent = "Sent to the interviewer";
      } else if (response.status === 400 && !retried) {
        return poll().then(function () { send(true); }); // a fresh CSRF token, then again
      } else {
        if (response.status === 409) {
          poll().then(function () { saved.textContent = said.ended; }, function () {}); // the screen says so too
        } else {
          saved.textContent = "Not sent; trying again";
          timer = setTimeout(send, 2000);
        }
      }
      if (again) { again = false; send(); }
    }, function () {
      sending = false;
      saved.textContent = "Not sent; trying again";
      timer = setTimeout(send, 2000);
    });
  }
  if (scratch) {
    scratch.addEventListener("input", function () {
      clearTimeout(timer);
      saved.textContent = "";
      timer = setTimeout(send, 400);
    });
    scratch.form.addEventListener("submit", function (event) { event.preventDefault(); send(); });
  }
})();
